"""Kernels split across the engine's threads (the page's wasm worker threads, runtime.py), every thread running the
same export on its share with its own packing workspace (wasm-kernels/threads.c):
- a GEMM by C's rows (``gemm_batched``): each element of C is the same sum in the same order whichever rows a call
  covers;
- a convolution by samples (``by_samples``): each sample's im2col and GEMMs are the same on any thread, with a
  scratch per thread.
So a split result is the single-threaded one bit for bit. Work under MIN_WORK multiply-adds stays on the calling
thread (handing a job over costs microseconds, and each thread packs B again). torch.set_num_threads(n) caps the
threads: _settings.set_num_threads sets ``cap``.

Where the program left the count to webtorch (no set_num_threads), each kernel's jobs take the faster of one thread
and all, by measurement: under load the page's threads may share one CPU share (Linux's autogroup divides the CPU
between sessions, not threads), and a split job then runs below one thread's speed (bench/bench_browser_threads.py).
Per kernel the rate (multiply-adds per second) of its split jobs and of its one-thread jobs is smoothed; a job takes
the faster, every EXPLORE-th the other, so a change of load shows within a few jobs. The bits never depend on it."""
import time

MIN_WORK = 1 << 21  # about 100 us of one core's GEMM
ROW_ALIGN = 8  # row ranges start at multiples of this (the micro-kernel's rows divide it: no extra partial panels)
# a GEMM's rows go in up to CALLS_PER_THREAD calls per thread, of at least MIN_ROWS rows: the threads take calls as
# they come (wasm_host.js), so a thread the OS runs late holds up a small share instead of half; each call packs B
# again (a K x N copy against MIN_ROWS x K x N multiply-adds)
CALLS_PER_THREAD = 2
MIN_ROWS = 128
cap = {"threads": None}  # torch.set_num_threads's value (None: every thread the runtime started)
EXPLORE = 16  # every 16th job of a kernel runs the way its rates do not choose (a few percent of its time)
SMOOTH = 0.5  # weight of a job's rate against the kernel's running rate


class Choice:
    """One kernel's smoothed rates (work per second) on one thread and on all, and which way its next job goes."""

    def __init__(self):
        self.rate, self.jobs = {}, 0

    def threads(self, n):
        """1 or ``n`` for the next job: the way not measured yet (all threads first), else the faster, or every
        EXPLORE-th job the slower."""
        self.jobs += 1
        split, one = self.rate.get(True), self.rate.get(False)
        if split is None or one is None:
            return n if split is None else 1
        return n if (split >= one) != (self.jobs % EXPLORE == 0) else 1

    def record(self, split, rate):
        old = self.rate.get(split)
        self.rate[split] = rate if old is None else old + SMOOTH * (rate - old)


choices = {}  # kernel name -> Choice


def threads_for(ctx, work, kernel):
    """How many threads ``work`` multiply-adds of ``kernel`` get: 1 under MIN_WORK, else those ready, at most the
    cap, or without a cap what kernel's Choice measured faster."""
    if work < MIN_WORK:
        return 1
    n, most = ctx.rt.threads(), cap["threads"]
    if most or n == 1:
        return min(n, most or n)
    return choices.setdefault(kernel, Choice()).threads(n)


def _run(ctx, name, calls, work):
    """The export ``name`` once per argument list in ``calls`` (``work`` multiply-adds in all): one call on this
    thread, more on the threads; the rate recorded where a Choice decides."""
    choice = choices.get(name) if work >= MIN_WORK and cap["threads"] is None else None
    start = time.perf_counter()
    if len(calls) == 1:
        ctx.call(name, *calls[0])
    else:
        ctx.rt.parallel(name, calls)
    if choice is not None:
        choice.record(len(calls) > 1, work / max(time.perf_counter() - start, 1e-9))


def ranges(count, parts, align=1):
    """At most ``parts`` contiguous [start, end) ranges covering ``count`` items, as even as starts at multiples of
    ``align`` allow (none empty)."""
    blocks = -(-count // align)
    parts = max(1, min(parts, blocks))
    cuts = [min(count, (blocks * i // parts) * align) for i in range(parts + 1)]
    return list(zip(cuts[:-1], cuts[1:]))


def gemm_batched(ctx, name, rows, m, k, a, sa_row, sa_col, b, sb_row, sb_col, c, geom, itemsize, work):
    """ctx.call(name, rows, m, k, a, sa_row, sa_col, b, sb_row, sb_col, c, geom) (matmul.c's gemm_batched_<t>: C
    rows of m contiguous elements) as calls over row ranges, run by as many threads as threads_for(work) and the
    rows allow (``work``: its multiply-adds)."""
    threads = threads_for(ctx, work, name)
    parts = 1 if threads == 1 else max(threads, min(threads * CALLS_PER_THREAD, rows // MIN_ROWS))
    _run(ctx, name, [(i1 - i0, m, k, a + i0 * sa_row * itemsize, sa_row, sa_col, b, sb_row, sb_col,
                      c + i0 * m * itemsize, geom) for i0, i1 in ranges(rows, parts, ROW_ALIGN)], work)


def by_samples(ctx, name, n, work, operands, scratch, tail):
    """ctx.call(name, *addresses, scratch(), n, *tail) with the n samples split across threads_for(work):
    ``operands`` are the kernel's leading (address, bytes per sample) pairs (0 for one every sample shares),
    ``scratch()`` makes one thread's scratch (a View, kept until the calls return)."""
    split = ranges(n, threads_for(ctx, work, name))
    scratches = [scratch() for _ in split]  # kept until the calls return
    _run(ctx, name, [(*(a + s0 * step for a, step in operands), s.addr, s1 - s0, *tail)
                     for (s0, s1), s in zip(split, scratches)], work)
