"""TensorBoard's PyTorch profiler plugin (torch-tb-profiler), driven headless on
a log directory, as its frontend drives it: prints, as JSON, every route the
frontend calls for every run, view, worker and span the plugin lists, with
its HTTP status and answer.

Runs under Debian's /usr/bin/python3 with the pinned plugin on PYTHONPATH
(python3-pandas, -numpy, -werkzeug, -absl). Debian has no tensorboard: the
plugin imports TBPlugin, TBContext and FrontendMetadata from
tensorboard.plugins.base_plugin only, so a stand-in module of those three
classes is put on sys.path first.

Usage: tb_plugin_report.py LOGDIR   (LOGDIR holds one folder per run)
"""
import gzip
import json
import os
import sys
import tempfile
import time

STAND_IN = '''
class TBContext:
    def __init__(self, logdir=None, flags=None, **kwargs):
        self.logdir = logdir
        self.flags = flags


class TBPlugin:
    plugin_name = None

    def __init__(self, context):
        self.context = context


class FrontendMetadata:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)
'''

# Per view, what its page in the frontend asks for (static/index.html).
VIEW_ROUTES = {
    "Overview": [("/overview", {})],
    "Operator": [("/operation", {"group_by": "Operation"}), ("/operation", {"group_by": "OperationAndInputShape"}),
                 ("/operation/table", {"group_by": "Operation"}),
                 ("/operation/table", {"group_by": "OperationAndInputShape"})],
    "Kernel": [("/kernel", {"group_by": "Kernel"}), ("/kernel/table", {"group_by": "Kernel"}),
               ("/kernel/table", {"group_by": "KernelNameAndOp"}), ("/kernel/tc_pie", {})],
    "Trace": [("/trace", {})],
    "Memory": [("/memory", {}), ("/memory_curve", {}), ("/memory_events", {})],
    "Module": [("/module", {}), ("/tree", {})],
    "Distributed": [("/distributed/gpuinfo", {}), ("/distributed/overlap", {}), ("/distributed/waittime", {}),
                    ("/distributed/commops", {})],
}


def install_stand_in():
    root = tempfile.mkdtemp(prefix="tb-stand-in-")
    package = os.path.join(root, "tensorboard", "plugins")
    os.makedirs(package)
    for folder in (os.path.join(root, "tensorboard"), package):
        open(os.path.join(folder, "__init__.py"), "w").close()
    with open(os.path.join(package, "base_plugin.py"), "w") as f:
        f.write(STAND_IN)
    sys.path.insert(0, root)


def main():
    logdir = sys.argv[1]
    install_stand_in()
    from tensorboard.plugins import base_plugin
    from torch_tb_profiler.plugin import TorchProfilerPlugin
    from werkzeug.test import Client
    from werkzeug.wrappers import Response

    plugin = TorchProfilerPlugin(base_plugin.TBContext(logdir=logdir))
    apps = plugin.get_plugin_apps()

    def dispatch(environ, start_response):
        route = apps.get(environ["PATH_INFO"])
        if route is None:
            return Response("no route", status=404)(environ, start_response)
        return route(environ, start_response)

    client = Client(dispatch, Response)
    calls = []

    def get(path, **args):
        response = client.get(path, query_string=args)
        body = response.get_data()
        if response.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        try:
            value = json.loads(body) if body else None
        except ValueError:
            value = None
        calls.append({"route": path, "args": args, "status": response.status_code,
                      "error": body.decode(errors="replace")[-2000:] if response.status_code != 200 else None})
        return response.status_code, value

    # Runs load in worker processes: poll until the plugin says it is done.
    deadline = time.monotonic() + 120
    while True:
        _, runs = get("/runs")
        if runs and not runs["loading"] and runs["runs"]:
            break
        if time.monotonic() > deadline:
            print(json.dumps({"error": "runs did not load: %s" % runs, "calls": calls}))
            return 1
        time.sleep(0.2)

    report = {"runs": {}, "calls": calls}
    for run in runs["runs"]:
        _, views = get("/views", run=run)
        run_report = report["runs"][run] = {"views": views or [], "spans": {}}
        for view in views or []:
            _, workers = get("/workers", run=run, view=view)
            for worker in workers or []:
                _, spans = get("/spans", run=run, worker=worker)
                for span in spans or [None]:
                    args = {"run": run, "worker": worker, "view": view}
                    if span is not None:
                        args["span"] = span
                    answers = run_report["spans"].setdefault("%s/%s" % (worker, span), {})
                    for route, extra in VIEW_ROUTES.get(view, []):
                        status, value = get(route, **dict(args, **extra))
                        key = route + ("?" + extra["group_by"] if "group_by" in extra else "")
                        # The trace itself is the file the plugin read: only its status matters.
                        answers[key] = None if route == "/trace" else value
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
