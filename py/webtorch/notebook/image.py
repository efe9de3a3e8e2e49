"""``show_image``: tensors (HW, CHW, NCHW or a list of them) as one PNG grid of images."""
import base64

from .host import current
from .png import encode_png

PAD = 2
MIN_DISPLAY = 96   # small images (8x8 digits) are scaled up in the page, pixelated, to at least this many px
MAX_SCALE = 8


def _images(t):
    """A list of (C, H, W, nested lists, is_float) images from a tensor or a list of tensors."""
    if isinstance(t, (list, tuple)):
        out = []
        for item in t:
            out.extend(_images(item))
        return out
    if not hasattr(t, "shape") or not hasattr(t, "tolist"):
        raise TypeError(f"show_image expects a tensor or a list of tensors, got {type(t).__name__}")
    shape = tuple(t.shape)
    t = t.detach()
    fl = t.dtype.is_floating_point
    if len(shape) == 2:
        return [(1, shape[0], shape[1], [t.tolist()], fl)]
    if len(shape) == 3 and shape[0] in (1, 3):
        return [(shape[0], shape[1], shape[2], t.tolist(), fl)]
    if len(shape) == 4 and shape[1] in (1, 3):
        return [(shape[1], shape[2], shape[3], img, fl) for img in t.tolist()]
    raise ValueError(f"show_image expects HW, CHW with C=1 or 3, NCHW or a list of those; got shape {list(shape)}"
                     + (" (for an HWC image, pass t.permute(2, 0, 1))" if len(shape) == 3 and shape[2] in (1, 3)
                        else ""))


def _to_bytes(channels, is_float):
    """0..255 ints of one image: floats min-max normalised unless already in [0, 1]; ints clipped to 0..255."""
    flat = [v for plane in channels for row in plane for v in row]
    if not flat:
        return []
    if is_float:
        lo, hi = min(flat), max(flat)
        if lo >= 0.0 and hi <= 1.0:
            lo, hi = 0.0, 1.0
        span = (hi - lo) or 1.0
        return [[[min(255, max(0, int((v - lo) / span * 255 + 0.5))) for v in row] for row in plane]
                for plane in channels]
    return [[[min(255, max(0, int(v))) for v in row] for row in plane] for plane in channels]


def image_grid(t, nrow=8):
    """(png bytes, grid width, grid height, number of images, (C, H, W) of the first image)."""
    imgs = _images(t)
    if not imgs:
        raise ValueError("show_image got no images (an empty list or batch)")
    color = any(c == 3 for c, *_ in imgs)
    ch = 3 if color else 1
    cell_h = max(h for _, h, *_ in imgs)
    cell_w = max(w for _, _, w, *_ in imgs)
    cols = max(1, min(nrow, len(imgs)))
    rows = (len(imgs) + cols - 1) // cols
    width = cols * cell_w + (cols + 1) * PAD
    height = rows * cell_h + (rows + 1) * PAD
    grid = bytearray(width * height * ch)
    for i, (c, h, w, planes, is_float) in enumerate(imgs):
        data = _to_bytes(planes, is_float)
        if ch == 3 and c == 1:
            data = data * 3
        top = PAD + (i // cols) * (cell_h + PAD)
        left = PAD + (i % cols) * (cell_w + PAD)
        for y in range(h):
            base = ((top + y) * width + left) * ch
            if ch == 1:
                grid[base:base + w] = bytes(data[0][y])
            else:
                grid[base:base + w * 3] = bytes(v for x in range(w) for v in (data[0][y][x], data[1][y][x],
                                                                              data[2][y][x]))
    return encode_png(bytes(grid), width, height, ch), width, height, len(imgs), imgs[0][:3]


def show_image(t, nrow=8, title=None):
    """Show a tensor image (HW, CHW with C=1 or 3), a batch (NCHW) or a list of them as one grid.

    Float values are min-max normalised per image unless they already lie in [0, 1]; integer values are
    taken as 0..255."""
    import html  # here, not at the top: html imports html.entities, 0.1 s of the kernel's start in Pyodide
    png, width, height, n, (c, h, w) = image_grid(t, nrow)
    summary = f"{title + ': ' if title else ''}{n} image{'s' if n != 1 else ''} {c}x{h}x{w} ({width}x{height} px grid)"
    host = current()
    if not host.rich:
        host.show({"text/plain": summary})
        return
    scale = max(1, min(MAX_SCALE, -(-MIN_DISPLAY // max(h, w))))
    b64 = base64.b64encode(png).decode()
    bundle = {"image/png": b64, "text/plain": summary}
    if title:
        bundle["text/html"] = (f'<figure class="wt-figure"><figcaption>{html.escape(title)}</figcaption>'
                               f'<img src="data:image/png;base64,{b64}" width="{width * scale}" '
                               f'style="image-rendering: pixelated" alt="{html.escape(summary)}"></figure>')
    host.show(bundle, {"image/png": {"width": width * scale, "height": height * scale}})
