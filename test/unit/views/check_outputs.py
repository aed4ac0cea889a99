"""Checks the files check_outputs.sh made against the formats' own rules.

folded: flamegraph.pl's input (one stack a line, ';' between frames, no
empty frame, a space and a positive integer at the end).
svg: well-formed XML that names every root-level frame of its stacks, with
an inline script and no external reference.
trace: valid JSON (gzip too) whose complete events all have ts, dur, pid and
tid, whose flow starts all have their finish, whose async begins all end,
and whose GPU work links to launches as the capture says.
"""
import collections
import gzip
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


def folded(path):
    stacks = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            check(line.endswith("\n"), f"{path}:{number}: no newline at the end")
            m = re.fullmatch(r"(.+) (\d+)\n", line)
            check(m is not None, f"{path}:{number}: not 'frames count': {line!r}")
            if not m:
                continue
            frames = m.group(1).split(";")
            check(all(frames), f"{path}:{number}: an empty frame")
            check(int(m.group(2)) > 0, f"{path}:{number}: count is not positive")
            check(not any(c in m.group(1) for c in "\r\t"), f"{path}:{number}: control character in a frame")
            stacks.append((frames, int(m.group(2))))
    check(stacks, f"{path}: no stacks")
    return stacks


def svg(path, stacks):
    tree = ET.parse(path)  # raises on malformed XML
    root = tree.getroot()
    check(root.tag == SVG + "svg", f"{path}: root element is {root.tag}")
    titles = [t.text or "" for t in root.iter(SVG + "title")]
    names = {t[: t.rfind(" (")] for t in titles}
    for frames, _ in stacks:
        check(frames[0] in names, f"{path}: root-level frame {frames[0]!r} not drawn")
    scripts = list(root.iter(SVG + "script"))
    check(len(scripts) == 1 and "function zoom" in (scripts[0].text or ""), f"{path}: no inline script")
    text = open(path, encoding="utf-8").read()
    check("href" not in text, f"{path}: external reference")
    total = sum(count for _, count in stacks)
    check(f"all ({total:,} us, 100.00%)" in titles, f"{path}: root frame is not the total {total}")
    # Title and subtitle lines sit above the top row of frames, not under it.
    tops = [float(r.get("y")) for g in root.iter(SVG + "g") if g.get("class") == "f" for r in g.iter(SVG + "rect")]
    for text in root.iter(SVG + "text"):
        if text.get("id") in ("title", "subtitle") and tops:
            check(float(text.get("y")) + 4 <= min(tops), f"{path}: {text.get('id')} at y={text.get('y')} is under "
                  f"the top row of frames (y={min(tops)})")


def trace(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    # "ns": the Catapult viewer nests at its display unit's precision.
    check(doc["displayTimeUnit"] == "ns", f"{path}: displayTimeUnit")
    flows = collections.Counter()
    asyncs = collections.Counter()
    by_cat = collections.defaultdict(list)
    for e in events:
        ph = e.get("ph")
        check(ph in ("X", "M", "s", "f", "b", "e", "C", "i"), f"{path}: unexpected ph {ph}")
        if ph == "X":
            for key in ("ts", "dur", "pid", "tid", "name", "cat"):
                check(key in e, f"{path}: complete event without {key}: {e}")
            check(e.get("dur", 0) >= 0, f"{path}: negative dur: {e}")
            by_cat[e["cat"]].append(e)
        elif ph == "s":
            flows[(e["cat"], e["id"])] += 1
        elif ph == "f":
            check(e.get("bp") == "e", f"{path}: flow end without bp=e: {e}")
            flows[(e["cat"], e["id"])] -= 1
        elif ph == "b":
            asyncs[(e["cat"], e["name"], e["id"])] += 1
        elif ph == "e":
            asyncs[(e["cat"], e["name"], e["id"])] -= 1
        if ph != "M":
            check(isinstance(e.get("ts"), (int, float)) and e["ts"] >= 0, f"{path}: bad ts: {e}")
    check(all(v == 0 for v in flows.values()), f"{path}: unpaired flows {dict(flows)}")
    check(all(v == 0 for v in asyncs.values()), f"{path}: unpaired async events {dict(asyncs)}")
    return doc, by_cat


def main(work):
    cuda = folded(os.path.join(work, "cuda.folded"))
    cpu = folded(os.path.join(work, "cpu.folded"))
    both = folded(os.path.join(work, "both.folded"))
    check(sum(c for _, c in cuda) == 11, "self CUDA total is not 11 us")
    check(any(f[0] == "pid 4243 thread 7 (main)" for f, _ in both), "no per-thread root of the second process")
    svg(os.path.join(work, "cuda.svg"), cuda)
    svg(os.path.join(work, "both.svg"), folded(os.path.join(work, "both_cpu.folded")))

    doc, cats = trace(os.path.join(work, "one.json"))
    check(doc["distributedInfo"]["rank"] == 0, "rank")
    check(len(cats["kernel"]) == 4 and len(cats["gpu_memcpy"]) == 1 and len(cats["gpu_memset"]) == 1, "GPU work")
    relu = [k for k in cats["kernel"] if k["name"] == 'relu "fast" kernel;v2']
    check(len(relu) == 1 and relu[0]["args"]["grid"] == [128, 1, 1] and round(relu[0]["dur"] * 1000) == 600,
          "kernel args")
    check(relu and relu[0]["args"]["correlation"] == 5, "kernel correlation")
    copy = cats["gpu_memcpy"][0]["args"]
    check(copy["bytes"] == 4000000 and copy["kind"] == "HtoD" and copy["memory bandwidth (GB/s)"] == 2000.0, "copy args")
    launches = {e["args"]["correlation"]: e for e in cats["cuda_runtime"]}
    for ev in cats["kernel"] + cats["gpu_memcpy"] + cats["gpu_memset"]:
        corr = ev["args"]["correlation"]
        if corr in launches:
            check(launches[corr]["ts"] <= ev["ts"], f"GPU work before its launch: {ev}")
    # Readers count every event named ProfilerStep# as a step: none on the GPU.
    step_gpu = [e for e in cats["gpu_user_annotation"] if e["name"].startswith("ProfilerStep#")]
    check(not step_gpu, f"gpu_user_annotations named after steps: {step_gpu[:2]}")

    doc2, cats2 = trace(os.path.join(work, "two.json.gz"))
    pids = {e["pid"] for e in cats2["cuda_runtime"]}
    check(pids == {4242, 4243}, f"two processes' rows: {pids}")
    gpu_pids = {e["pid"] for e in cats2["kernel"]}
    check(len(gpu_pids) == 2 and not gpu_pids & pids, f"GPU rows per process: {gpu_pids}")

    names = sorted(os.listdir(os.path.join(work, "windows")))
    check(names == ["trace.0.pt.trace.json", "trace.1.pt.trace.json"], f"window files: {names}")
    for name in names:
        trace(os.path.join(work, "windows", name))

    for f in failures:
        print("FAIL:", f)
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
