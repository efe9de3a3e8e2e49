"""A GEMM split across the engine's threads (the page's wasm worker threads, runtime.py): C's rows in one range per
thread, every thread running the same export on its range with its own packing workspace (wasm-kernels/threads.c).
Each element of C is the same sum in the same order whichever rows a call covers, so the result is the
single-threaded one bit for bit. A GEMM under MIN_WORK multiply-adds stays on the calling thread: handing a job
over costs microseconds, and each thread packs B again."""

MIN_WORK = 1 << 21  # about 100 us of one core's GEMM
ROW_ALIGN = 8  # ranges start at multiples of this (the micro-kernel's rows divide it: no extra partial panels)


def row_ranges(rows, parts):
    """``parts`` contiguous [start, end) ranges covering ``rows``, as even as ROW_ALIGN allows (none empty)."""
    blocks = -(-rows // ROW_ALIGN)
    parts = max(1, min(parts, blocks))
    cuts = [min(rows, (blocks * i // parts) * ROW_ALIGN) for i in range(parts + 1)]
    return list(zip(cuts[:-1], cuts[1:]))


def gemm_batched(ctx, name, rows, m, k, a, sa_row, sa_col, b, sb_row, sb_col, c, geom, itemsize, work,
                 parts=None):
    """ctx.call(name, rows, m, k, a, sa_row, sa_col, b, sb_row, sb_col, c, geom) (matmul.c's gemm_batched_<t>: C
    rows of m contiguous elements) on ``parts`` threads (default: as many as are ready when ``work``, the
    multiply-adds, is at least MIN_WORK)."""
    if parts is None:
        parts = ctx.rt.threads() if work >= MIN_WORK else 1
    ranges = row_ranges(rows, parts)
    if len(ranges) == 1:
        return ctx.call(name, rows, m, k, a, sa_row, sa_col, b, sb_row, sb_col, c, geom)
    ctx.rt.parallel(name, [(i1 - i0, m, k, a + i0 * sa_row * itemsize, sa_row, sa_col, b, sb_row, sb_col,
                            c + i0 * m * itemsize, geom) for i0, i1 in ranges])
