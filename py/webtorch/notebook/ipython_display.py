"""``IPython.display`` for the notebook app's kernel, where IPython itself is not installed.

The app's kernel (kernel.py) registers this module as ``IPython.display`` (and ``IPython.core.display``) when no
real IPython can be imported, so notebooks written for Jupyter run unchanged::

    from IPython.display import display, HTML, Image, Markdown, Math, SVG, clear_output, update_display
    h = display(HTML("<b>step 0</b>"), display_id=True)
    h.update(HTML("<b>step 1</b>"))

Why not the real module: IPython's ``display()`` renders only through an ``InteractiveShell`` (without one it
prints the repr), and a shell brings traitlets, pygments, jedi, stack_data, prompt_toolkit and more into an
offline site. The objects here give the same mime bundles as IPython 9's (checked against it in CPython).
"""
import base64
import os

from .display import DisplayHandle, clear_output, display, update_display

__all__ = ["display", "update_display", "clear_output", "DisplayHandle", "DisplayObject", "HTML", "Markdown",
           "Latex", "Math", "SVG", "Image", "get_ipython"]


def get_ipython():
    """None: there is no IPython shell in the app's kernel (code that checks for one takes its plain path)."""
    return None


class DisplayObject:
    """Data given directly, or read from ``filename``; shown by ``display(obj)`` or as a cell's last value."""

    _read_mode = "r"
    _links_url = False  # only an Image can show a URL without downloading it

    def __init__(self, data=None, url=None, filename=None, metadata=None):
        if isinstance(data, (str, os.PathLike)) and filename is None and url is None and _is_file_name(data):
            data, filename = None, os.fspath(data)
        if url is not None and data is None and filename is None and not self._links_url:
            raise ValueError(f"{type(self).__name__}(url=...) would download the URL, which the app's kernel does "
                             "not do: fetch it yourself (pyodide.http.pyfetch) and pass the text as data")
        self.data, self.url, self.filename = data, url, filename
        self.metadata = dict(metadata or {})
        if filename is not None:
            with open(filename, self._read_mode) as f:
                self.data = f.read()

    def __repr__(self):
        return f"<IPython.core.display.{type(self).__name__} object>"

    def _data_and_metadata(self):
        return (self.data, self.metadata) if self.metadata else self.data


def _is_file_name(s):
    s = os.fspath(s)
    return len(s) < 4096 and "\n" not in s and not s.lstrip().startswith("<") and os.path.isfile(s)


class HTML(DisplayObject):
    def _repr_html_(self):
        return self._data_and_metadata()


class Markdown(DisplayObject):
    def _repr_markdown_(self):
        return self._data_and_metadata()


class Latex(DisplayObject):
    """LaTeX text with $math$ in it (the app typesets the math with KaTeX)."""

    def _repr_latex_(self):
        return self._data_and_metadata()


class Math(DisplayObject):
    """One formula, shown in display style."""

    def _repr_latex_(self):
        s = r"$\displaystyle %s$" % self.data.strip("$")
        return (s, self.metadata) if self.metadata else s


class SVG(DisplayObject):
    """An SVG document; like IPython, only its ``<svg>`` element is kept (an XML prolog or doctype is dropped)."""

    def __init__(self, data=None, url=None, filename=None, metadata=None):
        super().__init__(data, url, filename, metadata)
        if isinstance(self.data, bytes):
            self.data = self.data.decode("utf-8")
        if self.data is not None and "<svg" in self.data:
            self.data = self.data[self.data.index("<svg"):]

    def _repr_svg_(self):
        return self._data_and_metadata()


_MAGIC = ((b"\x89PNG\r\n\x1a\n", "png"), (b"\xff\xd8", "jpeg"), (b"GIF8", "gif"))
_MIME = {"png": "image/png", "jpeg": "image/jpeg", "jpg": "image/jpeg", "gif": "image/gif"}


class Image(DisplayObject):
    """A PNG, JPEG or GIF image from bytes, a file or a URL (a URL is linked, not fetched, unless embedded
    data is given). ``width``/``height`` size it in the page."""

    _read_mode = "rb"
    _links_url = True

    def __init__(self, data=None, url=None, filename=None, format=None, embed=None, width=None, height=None,
                 metadata=None, alt=None):
        if isinstance(data, str) and data.startswith(("http://", "https://")) and url is None:
            data, url = None, data
        super().__init__(data, url, filename, metadata)
        self.embed = embed if embed is not None else self.data is not None
        if self.embed and self.data is None:
            raise ValueError("Image(embed=True) needs the image's bytes (data= or filename=): the kernel does not "
                             "download URLs; pass embed=False to link the URL")
        self.format = (format or self._guess_format()).lower()
        if self.embed and self.format not in _MIME:
            raise ValueError(f"Image format {self.format!r} is not shown; use png, jpeg or gif")
        self.width, self.height, self.alt = width, height, alt

    def _guess_format(self):
        if isinstance(self.data, bytes):
            for magic, fmt in _MAGIC:
                if self.data.startswith(magic):
                    return fmt
        name = self.filename or self.url or ""
        ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
        return ext if ext in _MIME else "png"

    def _size_metadata(self):
        md = {k: v for k, v in (("width", self.width), ("height", self.height), ("alt", self.alt)) if v}
        return {**md, **self.metadata}

    def _repr_mimebundle_(self, include=None, exclude=None):
        if not self.embed:
            return {"text/html": self._repr_html_()}, {}
        mime = _MIME[self.format]
        md = self._size_metadata()
        return {mime: base64.b64encode(self.data).decode("ascii")}, ({mime: md} if md else {})

    def _repr_html_(self):
        if self.embed:
            return None
        attrs = "".join(f' {k}="{v}"' for k, v in (("width", self.width), ("height", self.height),
                                                   ("alt", self.alt)) if v)
        return f'<img src="{self.url}"{attrs}/>'
