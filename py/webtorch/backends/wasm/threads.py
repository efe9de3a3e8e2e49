"""Kernels split across the engine's threads (the page's wasm worker threads, runtime.py), every thread running the
same export on its share with its own packing workspace (wasm-kernels/threads.c):
- a GEMM by C's rows (``gemm_batched``): each element of C is the same sum in the same order whichever rows a call
  covers;
- a convolution by samples (``by_samples``): each sample's im2col and GEMMs are the same on any thread, with a
  scratch per thread.
So a split result is the single-threaded one bit for bit. Work under MIN_WORK multiply-adds stays on the calling
thread (handing a job over costs microseconds, and each thread packs B again). torch.set_num_threads(n) caps the
threads: _settings.set_num_threads sets ``cap``."""

MIN_WORK = 1 << 21  # about 100 us of one core's GEMM
ROW_ALIGN = 8  # row ranges start at multiples of this (the micro-kernel's rows divide it: no extra partial panels)
# a GEMM's rows go in up to CALLS_PER_THREAD calls per thread, of at least MIN_ROWS rows: the threads take calls as
# they come (wasm_host.js), so a thread the OS runs late holds up a small share instead of half; each call packs B
# again (a K x N copy against MIN_ROWS x K x N multiply-adds)
CALLS_PER_THREAD = 2
MIN_ROWS = 128
cap = {"threads": None}  # torch.set_num_threads's value (None: every thread the runtime started)


def threads_for(ctx, work):
    """How many threads ``work`` multiply-adds get: 1 under MIN_WORK, else those ready (at most the cap)."""
    if work < MIN_WORK:
        return 1
    n, most = ctx.rt.threads(), cap["threads"]
    return min(n, most) if most else n


def ranges(count, parts, align=1):
    """At most ``parts`` contiguous [start, end) ranges covering ``count`` items, as even as starts at multiples of
    ``align`` allow (none empty)."""
    blocks = -(-count // align)
    parts = max(1, min(parts, blocks))
    cuts = [min(count, (blocks * i // parts) * align) for i in range(parts + 1)]
    return list(zip(cuts[:-1], cuts[1:]))


def gemm_batched(ctx, name, rows, m, k, a, sa_row, sa_col, b, sb_row, sb_col, c, geom, itemsize, work, parts=None):
    """ctx.call(name, rows, m, k, a, sa_row, sa_col, b, sb_row, sb_col, c, geom) (matmul.c's gemm_batched_<t>: C
    rows of m contiguous elements) as ``parts`` calls over row ranges, run by the threads (default: as many as
    threads_for(work) and the rows allow, ``work`` its multiply-adds)."""
    if parts is None:
        threads = threads_for(ctx, work)
        parts = 1 if threads == 1 else max(threads, min(threads * CALLS_PER_THREAD, rows // MIN_ROWS))
    split = ranges(rows, parts, ROW_ALIGN)
    if len(split) == 1:
        return ctx.call(name, rows, m, k, a, sa_row, sa_col, b, sb_row, sb_col, c, geom)
    ctx.rt.parallel(name, [(i1 - i0, m, k, a + i0 * sa_row * itemsize, sa_row, sa_col, b, sb_row, sb_col,
                            c + i0 * m * itemsize, geom) for i0, i1 in split])


def by_samples(ctx, name, n, work, operands, scratch, tail):
    """ctx.call(name, *addresses, scratch(), n, *tail) with the n samples split across threads_for(work):
    ``operands`` are the kernel's leading (address, bytes per sample) pairs (0 for one every sample shares),
    ``scratch()`` makes one thread's scratch (a View, kept until the calls return)."""
    split = ranges(n, threads_for(ctx, work))
    scratches = [scratch() for _ in split]
    if len(split) == 1:
        return ctx.call(name, *(a for a, _ in operands), scratches[0].addr, n, *tail)
    ctx.rt.parallel(name, [(*(a + s0 * step for a, step in operands), s.addr, s1 - s0, *tail)
                           for (s0, s1), s in zip(split, scratches)])
