"""torch.utils.data.datapipes against PyTorch's: the same elements in the same order from the same seeds, the
functional forms, the single-iterator rule, the decorators and DataLoader over a DataPipe."""
import functools
import pickle
import warnings
from typing import Any, List, Union

import pytest
import torch
import torch.utils.data as tdata
import torch.utils.data.datapipes.iter as titer
import torch.utils.data.datapipes.map as tmap

import webtorch
import webtorch.utils.data as wdata
import webtorch.utils.data.datapipes.iter as witer
import webtorch.utils.data.datapipes.map as wmap


def _add(a, b):
    return a + b


def _even(x):
    return x % 2 == 0


def _times3(x):
    return 3 * x


_IDENTITY = lambda x: x  # noqa: E731  (a module-level lambda: PyTorch warns about lambdas, not about locals)


ITER_PIPELINES = {
    "map_filter_batch": lambda it: it.IterableWrapper(range(11)).map(_times3).filter(_even).batch(2),
    "batch_drop_last": lambda it: it.IterableWrapper(range(10)).batch(3, drop_last=True),
    "unbatch": lambda it: it.IterableWrapper([[1, [2, 3]], [[4]], []]).unbatch(),
    "unbatch_all": lambda it: it.IterableWrapper([[1, [2, 3]], [[4]], []]).unbatch(-1),
    "columns": lambda it: it.IterableWrapper([(1, 2, 3), (4, 5, 6)]).map(_add, input_col=[0, 2]),
    "column_out": lambda it: it.IterableWrapper([[1, 2], [3, 4]]).map(_times3, input_col=0, output_col=-1),
    "dict_column": lambda it: it.IterableWrapper([{"a": 1}, {"a": 2}]).map(_times3, input_col="a", output_col="b"),
    "filter_column": lambda it: it.IterableWrapper([(1, 2), (2, 3)]).filter(_even, input_col=1),
    "concat": lambda it: it.IterableWrapper(range(3)).concat(it.IterableWrapper("ab")),
    "zip": lambda it: it.IterableWrapper(range(5)).zip(it.IterableWrapper("abc")),
    "mux": lambda it: it.IterableWrapper(range(5)).mux(it.IterableWrapper("abc"), it.IterableWrapper([9, 8, 7])),
    "shuffle_seeded": lambda it: it.IterableWrapper(range(20)).shuffle(buffer_size=5).set_seed(7),
    "shuffle_unbatch": lambda it: it.IterableWrapper([[0, 1], [2, 3], [4]]).shuffle(unbatch_level=1).set_seed(1),
    "shuffle_off": lambda it: it.IterableWrapper(range(6)).shuffle().set_shuffle(False),
    "sharded": lambda it: it.IterableWrapper(range(10)).sharding_filter(),
    "sampler": lambda it: it.Sampler(it.IterableWrapper(range(4))),
    "collate": lambda it: it.IterableWrapper(range(6)).batch(2).collate(),
}


def _plain(x):
    if isinstance(x, (torch.Tensor, webtorch.Tensor)):
        return ("tensor", x.tolist())
    if isinstance(x, (list, tuple)):
        return type(x).__name__, [_plain(v) for v in x]
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    return x


@pytest.mark.parametrize("name", sorted(ITER_PIPELINES))
def test_iter_pipelines_yield_what_torch_yields(name):
    ours, theirs = ITER_PIPELINES[name](witer), ITER_PIPELINES[name](titer)
    assert _plain(list(ours)) == _plain(list(theirs))
    if name.startswith("shuffle_") and name != "shuffle_off":  # the seed holds for one epoch; the next draws from each library's RNG
        assert sorted(ours) == sorted(theirs)
    else:
        assert _plain(list(ours)) == _plain(list(theirs)), "a second epoch"
    assert repr(ours) == repr(theirs) and str(ours) == str(theirs)
    try:
        want = len(theirs)
    except TypeError as e:
        with pytest.raises(TypeError, match=str(e)):
            len(ours)
    else:
        assert len(ours) == want
    assert type(next(iter(ours))).__name__ == type(next(iter(theirs))).__name__


MAP_PIPELINES = {
    "map_batch": lambda m: m.SequenceWrapper(list(range(7))).map(_times3).batch(3),
    "batch_drop_last": lambda m: m.SequenceWrapper(list(range(7))).batch(3, drop_last=True),
    "concat": lambda m: m.SequenceWrapper([1, 2]).concat(m.SequenceWrapper([3])),
    "zip": lambda m: m.SequenceWrapper([1, 2, 3]).zip(m.SequenceWrapper("ab")),
    "dict": lambda m: m.SequenceWrapper({"x": 1, "y": 2}),
}


@pytest.mark.parametrize("name", sorted(MAP_PIPELINES))
def test_map_pipelines_index_as_torch(name):
    ours, theirs = MAP_PIPELINES[name](wmap), MAP_PIPELINES[name](tmap)
    keys = ["x", "y"] if name == "dict" else range(len(theirs))
    assert len(ours) == len(theirs) and [_plain(ours[i]) for i in keys] == [_plain(theirs[i]) for i in keys]
    if name != "dict":
        with pytest.raises(IndexError) as torch_err:
            theirs[len(theirs) + 2]
        with pytest.raises(IndexError, match=f"^{torch_err.value}$"):
            ours[len(theirs) + 2]


@pytest.mark.parametrize("seed", [0, 5])
def test_map_shuffle_is_an_iter_pipe_with_torchs_order(seed):
    ours = wmap.SequenceWrapper(list(range(12))).shuffle().set_seed(seed)
    theirs = tmap.SequenceWrapper(list(range(12))).shuffle().set_seed(seed)
    assert isinstance(ours, wdata.IterDataPipe) and list(ours) == list(theirs)
    assert sorted(ours) == list(range(12)), "an unseeded epoch is a permutation"
    webtorch.manual_seed(3)
    first = list(wmap.SequenceWrapper(list(range(12))).shuffle())
    webtorch.manual_seed(3)
    assert list(wmap.SequenceWrapper(list(range(12))).shuffle()) == first


def test_a_second_iterator_invalidates_the_first():
    for lib in (witer, titer):
        dp = lib.IterableWrapper(range(3)).map(_times3)
        it1 = iter(dp)
        assert next(it1) == 0
        it2 = iter(dp)
        assert next(it2) == 0
        with pytest.raises(RuntimeError, match="This iterator has been invalidated because another iterator has been "
                                               r"created from the same IterDataPipe: MapperIterDataPipe\(datapipe="
                                               "IterableWrapperIterDataPipe, fn=_times3, input_col=None, "
                                               r"output_col=None\)"):
            next(it1)
        assert list(it2) == [3, 6]


class _Countdown:
    """An IterDataPipe whose __iter__ returns itself (the non-generator hook)."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        self.left = self.n
        return self

    def __next__(self):
        if self.left == 0:
            raise StopIteration
        self.left -= 1
        return self.left

    def reset(self):
        self.resets = getattr(self, "resets", 0) + 1


def test_non_generator_pipes_count_and_reset_as_torch():
    got = []
    for base in (wdata.IterDataPipe, tdata.IterDataPipe):
        dp = type("Countdown", (base,), dict(vars(_Countdown)))(3)
        it = iter(dp)
        first = list(it)
        iter(dp)
        got.append((first, dp.resets, dp._number_of_samples_yielded, dp._valid_iterator_id))
    assert got[0] == got[1] == ([2, 1, 0], 2, 0, 1)


def test_exceptions_name_the_pipe():
    def bad(x):
        raise ValueError("boom")
    for lib in (witer, titer):
        with pytest.raises(ValueError, match=r"^boom\nThis exception is thrown by __iter__ of MapperIterDataPipe\("
                                             r"datapipe=IterableWrapperIterDataPipe, fn=bad, input_col=None, "
                                             r"output_col=None\)$"):
            list(lib.IterableWrapper([1]).map(bad))


@pytest.mark.parametrize("make,error,match", [
    (lambda it: it.IterableWrapper([1]).map(_add), ValueError, "takes 2 positional parameters, but 1 are required"),
    (lambda it: it.IterableWrapper([1]).map(_times3, output_col=1), ValueError, "`output_col` must be None"),
    (lambda it: it.IterableWrapper([1]).map(_times3, input_col=0, output_col=[1, 2]), ValueError, "single-element"),
    (lambda it: it.IterableWrapper([1]).map(3), TypeError, "A callable function is expected"),
    (lambda it: it.IterableWrapper([1]).batch(0), AssertionError, "Batch size is required to be larger than 0!"),
    (lambda it: it.IterableWrapper([1]).shuffle(buffer_size=0), AssertionError, "buffer_size should be larger"),
    (lambda it: it.IterableWrapper([1]).concat([2]), TypeError, "Expected all inputs to be `IterDataPipe`"),
    (lambda it: it.Concater(), ValueError, "Expected at least one DataPipe, but got nothing"),
    (lambda it: list(it.IterableWrapper([1]).filter(_times3)), ValueError, "Boolean output is required"),
    (lambda it: list(it.IterableWrapper([[1]]).unbatch(3)), IndexError, "unbatch_level 3 exceeds the depth"),
    (lambda it: it.IterableWrapper([1]).nope, AttributeError, "'IterableWrapperIterDataPipe' object has no attr"),
    (lambda it: it.IterableWrapper(range(3)).sharding_filter().apply_sharding(2, 2), ValueError,
     r"instance_id\(2\) should be smaller than num_of_instances\(2\)"),
])
def test_bad_arguments_raise_as_torch(make, error, match):
    for lib in (witer, titer):
        with pytest.raises(error, match=match):
            make(lib)


def test_lambdas_warn_that_pickle_cannot_carry_them():
    for lib in (witer, titer):
        with pytest.warns(UserWarning, match="Lambda function is not supported by pickle"):
            lib.IterableWrapper([1]).map(_IDENTITY)
        with pytest.warns(UserWarning, match="Local function is not supported by pickle"):
            lib.IterableWrapper([1]).map(lambda x: x)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            dp = lib.IterableWrapper([1, 2]).map(functools.partial(_add, 1))
        assert list(pickle.loads(pickle.dumps(dp))) == [2, 3]


def test_sharding_groups_nest_as_torch():
    from torch.utils.data.datapipes.iter.sharding import SHARDING_PRIORITIES as TP
    from webtorch.utils.data.datapipes.iter.sharding import SHARDING_PRIORITIES as WP
    got = []
    for lib, P in ((witer, WP), (titer, TP)):
        dp = lib.IterableWrapper(range(20)).sharding_filter()
        dp.apply_sharding(2, 1, P.DISTRIBUTED)
        dp.apply_sharding(3, 2, P.MULTIPROCESSING)
        got.append((list(dp), len(dp)))
        with pytest.raises(RuntimeError, match="cannot mix DEFAULT and non DEFAULT groups"):
            dp.apply_sharding(2, 0)
    assert got[0] == got[1]


def test_functional_datapipe_registers_and_refuses_a_taken_name():
    @wdata.functional_datapipe("webtorch_test_repeat")
    class Repeat(wdata.IterDataPipe):
        def __init__(self, source, times):
            self.source, self.times = source, times

        def __iter__(self):
            for x in self.source:
                yield from [x] * self.times

    assert list(witer.IterableWrapper([1, 2]).webtorch_test_repeat(2)) == [1, 1, 2, 2]
    assert "webtorch_test_repeat" in dir(witer.IterableWrapper([]))
    with pytest.raises(Exception, match="Unable to add DataPipe function name map as it is already taken"):
        wdata.functional_datapipe("map")(Repeat)

    @wdata.functional_datapipe("webtorch_test_double")
    class Double(wdata.MapDataPipe):
        def __init__(self, source):
            self.source = source

        def __getitem__(self, i):
            return 2 * self.source[i]

        def __len__(self):
            return len(self.source)
    assert wmap.SequenceWrapper([1, 2]).webtorch_test_double()[1] == 4


def test_determinism_guard_and_non_deterministic():
    for lib in (wdata, tdata):
        @lib.non_deterministic
        class Random(lib.IterDataPipe):
            def __iter__(self):
                yield 1

        class Maybe(lib.IterDataPipe):
            def __init__(self, flag):
                self.flag = flag

            def __iter__(self):
                yield self.flag
        maybe = lib.non_deterministic(lambda flag: flag)(Maybe)
        assert list(Random()) == [1] and list(maybe(True)) == [True]
        with lib.guaranteed_datapipes_determinism():
            with pytest.raises(TypeError, match="Random is non-deterministic, but you set "
                                                "'guaranteed_datapipes_determinism'"):
                Random()
            with pytest.raises(TypeError, match="Maybe is non-deterministic with the inputs"):
                maybe(True)
            assert list(maybe(False)) == [False]
        assert list(Random()) == [1]
        with pytest.raises(TypeError, match="Only `IterDataPipe` can be decorated with `non_deterministic`, but "
                                            "int is found"):
            lib.non_deterministic(int)
        with pytest.raises(TypeError, match="required to return a boolean value"):
            lib.non_deterministic(lambda flag: 1)(Maybe)(True)


def test_argument_validation_checks_datapipe_arguments():
    for lib in (tdata, wdata):
        @lib.argument_validation
        def consume(dp: lib.IterDataPipe, n: int):
            return n

        with pytest.raises(TypeError, match="Expected argument 'dp' as a IterDataPipe, but found <class 'list'>"):
            consume([1], 2)
    assert consume(witer.IterableWrapper([1]), 2) == 2  # PyTorch 2.13 reads a `.type` it no longer sets here


def test_runtime_validation_checks_each_element_against_the_declared_type():
    class Ints(wdata.IterDataPipe[int]):
        def __init__(self, items):
            self.items = items

        @wdata.runtime_validation
        def __iter__(self):
            yield from self.items

    class Pairs(wdata.IterDataPipe[List[Union[int, str]]]):
        def __init__(self, items):
            self.items = items

        @wdata.runtime_validation
        def __iter__(self):
            yield from self.items

    assert list(Ints([1, 2])) == [1, 2] and list(Pairs([[1, "a"], []])) == [[1, "a"], []]
    with pytest.raises(RuntimeError, match=r"Expected an instance as subtype of int, but found a\(<class 'str'>\)"):
        list(Ints([1, "a"]))
    with pytest.raises(RuntimeError, match="Expected an instance as subtype of"):
        list(Pairs([[1.5]]))
    with wdata.runtime_validation_disabled():
        assert list(Ints(["a"])) == ["a"]
    for lib in (wdata, tdata):
        with pytest.raises(TypeError, match="Can not decorate function __len__ with 'runtime_validation'"):
            def __len__(self):
                return 0
            lib.runtime_validation(__len__)
    assert wdata.IterDataPipe[Any] is not None and wdata.MapDataPipe[int] is not None


def test_data_chunk_as_torch():
    ours, theirs = wdata.DataChunk([1, (2, 3)]), tdata.DataChunk([1, (2, 3)])
    assert (ours.as_str("  "), list(ours.raw_iterator()), repr(ours), ours == [1, (2, 3)]) == (
        theirs.as_str("  "), list(theirs.raw_iterator()), repr(theirs), True)


def test_dataloader_over_datapipes():
    dp = witer.IterableWrapper(range(10)).shuffle()
    assert [b.tolist() for b in wdata.DataLoader(dp, batch_size=4, shuffle=False)] == [[0, 1, 2, 3], [4, 5, 6, 7],
                                                                                        [8, 9]]
    g = webtorch.Generator().manual_seed(0)
    loader = wdata.DataLoader(dp, batch_size=None, shuffle=True, generator=g)
    first, second = list(loader), list(loader)
    assert sorted(first) == sorted(second) == list(range(10)) and first != second
    g.manual_seed(0)
    assert list(loader) == first  # the loader's generator seeds the graph's Shufflers
    with pytest.warns(UserWarning, match="does not contain a `Shuffler`. Adding one at the end"):
        plain = wdata.DataLoader(witer.IterableWrapper(range(10)), batch_size=5, shuffle=True)
    assert sorted(sum((b.tolist() for b in plain), [])) == list(range(10))
    mapped = wdata.DataLoader(wmap.SequenceWrapper(list(range(6))).map(_times3), batch_size=4)
    assert [b.tolist() for b in mapped] == [[0, 3, 6, 9], [12, 15]]
