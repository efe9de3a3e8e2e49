"""The weights-only unpickler: a small pickle interpreter that can never run code from a file.

It walks the opcodes itself (iteratively, so nesting depth is bounded only by the file's size) and knows
three kinds of global: the rebuild functions and value types a checkpoint needs (``allowed``), classes and
functions the user allow-listed (``webtorch.serialization.add_safe_globals``), and nothing else. REDUCE
calls only those; NEWOBJ constructs only allow-listed classes; BUILD sets state only on an OrderedDict /
Counter the pickle made (its attributes, e.g. ``state_dict._metadata``) or on an instance of an allow-listed
class -- never on a class, a function, a device or a tensor.
"""
import struct
from collections import Counter, OrderedDict

from .errors import CheckpointError

_MAX_NAME = 1000  # characters of a GLOBAL's module or name


class WeightsUnpickler:
    """``resolve(module, name)`` returns (object, callable?) or raises; ``persistent_load(pid)`` makes storages;
    ``safe_types`` is the set of user-allow-listed classes whose instances BUILD may set state on."""

    def __init__(self, data, resolve, persistent_load, safe_types):
        self.data = memoryview(data)
        self.pos = 0
        self.resolve = resolve
        self.persistent_load = persistent_load
        self.safe_types = safe_types
        self.callables = set()  # ids of the resolved objects REDUCE/NEWOBJ may call
        self.keep = []  # keeps those objects alive so their ids stay unique

    # ---- reading ------------------------------------------------------------------------------------
    def read(self, n):
        end = self.pos + n
        if n < 0 or end > len(self.data):
            raise CheckpointError(f"checkpoint pickle is truncated: an opcode at byte {self.pos} needs {n} bytes, "
                                  f"{len(self.data) - self.pos} remain")
        b = self.data[self.pos:end]
        self.pos = end
        return b

    def unpack(self, fmt):
        return struct.unpack(fmt, self.read(struct.calcsize(fmt)))[0]

    def readline(self):
        data = self.data
        end = bytes(data[self.pos:self.pos + _MAX_NAME + 1]).find(b"\n")
        if end < 0:
            raise CheckpointError(f"checkpoint pickle has a GLOBAL name longer than {_MAX_NAME} bytes or truncated")
        line = bytes(data[self.pos:self.pos + end])
        self.pos += end + 1
        try:
            return line.decode("utf-8")
        except UnicodeDecodeError:
            raise CheckpointError("checkpoint pickle has a GLOBAL name that is not UTF-8") from None

    def text(self, n):
        try:
            return bytes(self.read(n)).decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            raise CheckpointError("checkpoint pickle has a string that is not UTF-8") from None

    # ---- the interpreter ----------------------------------------------------------------------------
    def load(self):
        stack, marks, memo = [], [], {}
        unpack = self.unpack

        def pop_mark():
            nonlocal stack
            if not marks:
                raise CheckpointError("checkpoint pickle pops a MARK that was never pushed")
            items, stack = stack, marks.pop()
            return items

        def pop():
            if not stack:
                raise CheckpointError("checkpoint pickle pops from an empty stack")
            return stack.pop()

        def target(kinds, op):
            if not stack or type(stack[-1]) not in kinds:
                raise CheckpointError(f"checkpoint pickle: can only {op} a "
                                      f"{'/'.join(k.__name__ for k in kinds)}, got "
                                      f"{type(stack[-1]).__name__ if stack else 'an empty stack'}")
            return stack[-1]

        def setitems(items):
            if len(items) % 2:
                raise CheckpointError("checkpoint pickle: SETITEMS with an odd number of items")
            d = target((dict, OrderedDict, Counter), "set items on")
            for i in range(0, len(items), 2):
                d[items[i]] = items[i + 1]

        while True:
            op = self.read(1)[0]
            if op == 0x80:  # PROTO
                proto = self.read(1)[0]
                if proto > 5:
                    raise CheckpointError(f"checkpoint pickle uses protocol {proto}; at most 5 is known")
            elif op == 0x95:  # FRAME
                self.read(8)
            elif op == 0x2E:  # STOP
                return pop()
            elif op == 0x28:  # MARK
                marks.append(stack)
                stack = []
            elif op == 0x30:  # POP
                if stack:
                    stack.pop()
                else:
                    pop_mark()
            elif op == 0x31:  # POP_MARK
                pop_mark()
            elif op == 0x32:  # DUP
                if not stack:
                    raise CheckpointError("checkpoint pickle duplicates the top of an empty stack")
                stack.append(stack[-1])
            elif op == 0x29:  # EMPTY_TUPLE
                stack.append(())
            elif op == 0x74:  # TUPLE
                items = pop_mark()
                stack.append(tuple(items))
            elif op in (0x85, 0x86, 0x87):  # TUPLE1..3
                n = op - 0x84
                if len(stack) < n:
                    raise CheckpointError("checkpoint pickle builds a tuple from too few items")
                items = tuple(stack[-n:])
                del stack[-n:]
                stack.append(items)
            elif op == 0x5D:  # EMPTY_LIST
                stack.append([])
            elif op == 0x61:  # APPEND
                v = pop()
                target((list,), "append to").append(v)
            elif op == 0x65:  # APPENDS
                items = pop_mark()
                target((list,), "extend").extend(items)
            elif op == 0x7D:  # EMPTY_DICT
                stack.append({})
            elif op == 0x73:  # SETITEM
                v = pop()
                k = pop()
                setitems([k, v])
            elif op == 0x75:  # SETITEMS
                setitems(pop_mark())
            elif op == 0x8F:  # EMPTY_SET
                stack.append(set())
            elif op == 0x90:  # ADDITEMS
                items = pop_mark()
                target((set,), "add items to").update(items)
            elif op == 0x91:  # FROZENSET
                stack.append(frozenset(pop_mark()))
            elif op == 0x4E:  # NONE
                stack.append(None)
            elif op == 0x88:
                stack.append(True)
            elif op == 0x89:
                stack.append(False)
            elif op == 0x4A:  # BININT
                stack.append(unpack("<i"))
            elif op == 0x4B:  # BININT1
                stack.append(self.read(1)[0])
            elif op == 0x4D:  # BININT2
                stack.append(unpack("<H"))
            elif op == 0x8A:  # LONG1
                stack.append(int.from_bytes(self.read(self.read(1)[0]), "little", signed=True))
            elif op == 0x8B:  # LONG4
                stack.append(int.from_bytes(self.read(unpack("<i")), "little", signed=True))
            elif op == 0x47:  # BINFLOAT
                stack.append(unpack(">d"))
            elif op == 0x58:  # BINUNICODE
                stack.append(self.text(unpack("<I")))
            elif op == 0x8C:  # SHORT_BINUNICODE
                stack.append(self.text(self.read(1)[0]))
            elif op == 0x8D:  # BINUNICODE8
                stack.append(self.text(unpack("<Q")))
            elif op == 0x54:  # BINSTRING (a Python 2 str)
                stack.append(self.text(unpack("<i")))
            elif op == 0x55:  # SHORT_BINSTRING
                stack.append(self.text(self.read(1)[0]))
            elif op == 0x42:  # BINBYTES
                stack.append(bytes(self.read(unpack("<I"))))
            elif op == 0x43:  # SHORT_BINBYTES
                stack.append(bytes(self.read(self.read(1)[0])))
            elif op == 0x8E:  # BINBYTES8
                stack.append(bytes(self.read(unpack("<Q"))))
            elif op == 0x96:  # BYTEARRAY8
                stack.append(bytearray(self.read(unpack("<Q"))))
            elif op == 0x63:  # GLOBAL
                module = self.readline()
                stack.append(self.find(module, self.readline()))
            elif op == 0x93:  # STACK_GLOBAL
                name, module = pop(), pop()
                if not (isinstance(module, str) and isinstance(name, str)):
                    raise CheckpointError("checkpoint pickle: STACK_GLOBAL needs two strings")
                stack.append(self.find(module, name))
            elif op == 0x52:  # REDUCE
                args = pop()
                stack.append(self.call(pop(), args, {}, "call"))
            elif op == 0x81:  # NEWOBJ
                args = pop()
                stack.append(self.new(pop(), args, {}))
            elif op == 0x92:  # NEWOBJ_EX
                kwargs, args = pop(), pop()
                stack.append(self.new(pop(), args, kwargs))
            elif op == 0x62:  # BUILD
                state = pop()
                self.build(stack[-1] if stack else pop(), state)
            elif op == 0x51:  # BINPERSID
                stack.append(self.persistent_load(pop()))
            elif op == 0x68:  # BINGET
                stack.append(self.get(memo, self.read(1)[0]))
            elif op == 0x6A:  # LONG_BINGET
                stack.append(self.get(memo, unpack("<I")))
            elif op == 0x71:  # BINPUT
                memo[self.read(1)[0]] = stack[-1] if stack else pop()
            elif op == 0x72:  # LONG_BINPUT
                memo[unpack("<I")] = stack[-1] if stack else pop()
            elif op == 0x94:  # MEMOIZE
                memo[len(memo)] = stack[-1] if stack else pop()
            else:
                raise CheckpointError(f"Unsupported operand {op} at byte {self.pos - 1} of the checkpoint pickle "
                                      "(the weights-only unpickler reads protocol 2-5 binary pickles)")

    @staticmethod
    def get(memo, i):
        if i not in memo:
            raise CheckpointError(f"checkpoint pickle reads memo entry {i}, which was never stored")
        return memo[i]

    def find(self, module, name):
        obj, is_callable = self.resolve(module, name)
        if is_callable:
            self.callables.add(id(obj))
            self.keep.append(obj)
        return obj

    def call(self, func, args, kwargs, what):
        if id(func) not in self.callables:
            raise CheckpointError(f"checkpoint pickle tries to {what} {type(func).__name__} {_short(func)}, "
                                  "which is not an allowed function (only tensor rebuilders, containers and "
                                  "allow-listed globals are)")
        if not isinstance(args, tuple) or not isinstance(kwargs, dict):
            raise CheckpointError("checkpoint pickle passes arguments that are not a tuple")
        return func(*args, **kwargs)

    def new(self, cls, args, kwargs):
        if not (isinstance(cls, type) and cls in self.safe_types):
            raise CheckpointError(f"checkpoint pickle constructs {_short(cls)} with NEWOBJ; only classes "
                                  "allow-listed with webtorch.serialization.add_safe_globals can be")
        if not isinstance(args, tuple) or not isinstance(kwargs, dict):
            raise CheckpointError("checkpoint pickle passes arguments that are not a tuple")
        return cls.__new__(cls, *args, **kwargs)

    def build(self, inst, state):
        kind = type(inst)
        if kind in (OrderedDict, Counter):
            if not (isinstance(state, dict) and all(isinstance(k, str) for k in state)):
                raise CheckpointError(f"checkpoint pickle sets non-attribute state on a {kind.__name__}")
            inst.__dict__.update(state)
        elif kind in self.safe_types and not isinstance(inst, type):
            if hasattr(inst, "__setstate__"):
                inst.__setstate__(state)
            elif isinstance(state, dict) and all(isinstance(k, str) for k in state):
                inst.__dict__.update(state)
            else:
                raise CheckpointError(f"checkpoint pickle sets state of type {type(state).__name__} on a "
                                      f"{kind.__name__} that has no __setstate__")
        else:
            raise CheckpointError("Can only build OrderedDict or types allowlisted via `add_safe_globals`, but "
                                  f"got {_short(kind)} (webtorch never sets state on classes, functions, devices or "
                                  "tensors from a file)")


def _short(obj):
    name = getattr(obj, "__qualname__", None) or type(obj).__name__
    return f"{getattr(obj, '__module__', '')}.{name}".lstrip(".")[:200]
