"""sum_to: reduce a broadcast gradient back to an input's shape (the engine fits gradients with it; expand's
backward is it). Written against Tensor methods only."""


def sum_to(g, shape):
    shape = tuple(shape)
    gshape = tuple(g.shape)
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    if lead < 0:
        raise RuntimeError(f"shape {list(gshape)} is not expandable to {list(shape)}")
    dims = list(range(lead))
    for i, s in enumerate(shape):
        gs = gshape[lead + i]
        if s == 1 and gs != 1:
            dims.append(lead + i)
        elif s != gs:
            raise RuntimeError(f"shape {list(gshape)} is not expandable to {list(shape)}")
    if dims:
        g = g.sum(dim=dims, keepdim=True)
    if lead:
        g = g.reshape(shape)
    return g
