"""What every bench/*.py script ends with: an aligned table on stdout and bench/results/<name>.json.

The JSON holds the benchmark's name, a UTC timestamp, the machine the figures were taken on (timings on a
shared machine compare only within one run: the load average is recorded beside them), the script's own
settings, and every row in full (the table may show fewer columns).
"""
import datetime
import json
import os
import platform

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


def machine_info():
    """Platform, CPU count and load, and the versions and thread count of the libraries compared."""
    import numpy as np
    info = {"platform": platform.platform(), "machine": platform.machine(), "python": platform.python_version(),
            "cpus": os.cpu_count(), "load_average_1min": os.getloadavg()[0], "numpy": np.__version__}
    try:
        import torch
    except ImportError:
        return info
    info.update(torch=torch.__version__, torch_threads=torch.get_num_threads())
    return info


def format_table(rows, columns):
    """``columns``: (key, header, format spec) triples; text columns align left, numbers right."""
    cells = [[format(row[key], spec) for key, _, spec in columns] for row in rows]
    widths = [max([len(header)] + [len(r[i]) for r in cells]) for i, (_, header, _) in enumerate(columns)]
    numeric = [not isinstance(rows[0][key], str) if rows else True for key, _, _ in columns]

    def line(values):
        return "  ".join(v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)).rstrip()
    return "\n".join([line([header for _, header, _ in columns])] + [line(r) for r in cells])


def markdown_table(rows, columns):
    """``format_table`` as a Markdown table (numbers right-aligned)."""
    numeric = [not isinstance(rows[0][key], str) if rows else True for key, _, _ in columns]
    lines = ["| " + " | ".join(header for _, header, _ in columns) + " |",
             "|" + "|".join("---:" if num else "---" for num in numeric) + "|"]
    lines += ["| " + " | ".join(format(row[key], spec) for key, _, spec in columns) + " |" for row in rows]
    return "\n".join(lines)


def report(name, rows, columns, title=None, path=None, **settings):
    """Print ``rows`` (dicts) as a table of ``columns`` under ``title`` and write ``path`` (default
    results/<name>.json) with ``settings`` (the script's parameters, units, ...). Returns the path written."""
    if title:
        print(title)
    print(format_table(rows, columns))
    out = {"benchmark": name, "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "machine": machine_info(), **settings, "rows": rows}
    path = path or os.path.join(RESULTS, f"{name}.json")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(out, f, indent=2)
    print(f"wrote {path}")
    return path


def last_json_line(text):
    """The last line of ``text`` that is a JSON object (a benchmark script's result among other printed lines)."""
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:  # e.g. the script's own source shown beside its output
                continue
    raise SystemExit(f"no JSON result line in:\n{text[-2000:]}")
