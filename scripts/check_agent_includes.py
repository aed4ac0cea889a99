#!/usr/bin/env python3
"""Keeps the agent's include directions (docs/ARCHITECTURE.md draws them).

Every `#include "..."` of a file under agent/ is checked against ALLOWED, a
table of which folder may include which, as Perfetto's include-violation
check does for its tree. An edge not in the table fails the check with the
file and line, so that a new dependency is a decision written down here, not
an accident. Run by ctest (agent_include_directions); usage:
    check_agent_includes.py AGENT_DIR
"""
import os
import re
import sys

# Nodes: the agent's folders, plus the root's files that are layers of their
# own (agent_state.h is forward declarations only; config reads the
# environment; run_claim names the run's files). Any other file at the root (agent.cpp, signals,
# process_exit) is the composition root, "entry", which may include anything.
#
# A value is the set of nodes the key may include. "control/X.h" names one
# header: that edge is allowed through that interface only.
ALLOWED = {
    "common": set(),
    "encode": {"common"},
    "stacks": {"common"},
    "agent_state": set(),
    # libprof-regex.so's entry and libprof.so's side of it: shared/regex.h,
    # and the opener finds its own folder as agent.cpp does.
    "regex": {"common/loaded_object.h"},
    # The configuration holds each part's options (and names the output
    # file, which the run's claim disambiguates).
    "config": {"common", "capture", "control", "stacks"},
    "run_claim": {"common", "config"},
    # Capture windows know the rest only through their interfaces.
    "control": {"common", "agent_state"},
    "record": {"common", "encode", "stacks", "run_claim", "control/window_sink.h"},
    "capture": {"common", "encode", "record", "stacks", "agent_state", "capture/hooks",
                "control/capture_switch.h", "control/step_listener.h", "control/step_names.h"},
    "capture/hooks": {"common", "encode", "record", "stacks", "agent_state", "capture",
                      "control/step_names.h"},
    "entry": None,  # anything
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
ROOT_NODES = {"agent_state.h": "agent_state", "agent_state.cpp": "agent_state",
              "config.h": "config", "config.cpp": "config",
              "run_claim.h": "run_claim", "run_claim.cpp": "run_claim"}


def node_of(relative_path):
    """The node a file under agent/ belongs to, or None for a generated one."""
    folder, name = os.path.split(relative_path)
    if folder == "":
        return ROOT_NODES.get(name, "entry")
    return folder


def target_of(agent_dir, including_folder, included):
    """The node an included path names, and its path under agent/; None for
    headers from outside the agent (shared/, the system, generated code)."""
    for candidate in (os.path.join(including_folder, included), included):
        if os.path.isfile(os.path.join(agent_dir, candidate)):
            path = os.path.normpath(candidate)
            return node_of(path), path
    return None


def violations(agent_dir):
    found = []
    for folder, _, names in os.walk(agent_dir):
        for name in sorted(names):
            if not name.endswith((".h", ".cpp", ".inc")):
                continue
            path = os.path.relpath(os.path.join(folder, name), agent_dir)
            source = node_of(path)
            allowed = ALLOWED.get(source, set())
            if allowed is None:
                continue
            with open(os.path.join(agent_dir, path), encoding="utf-8") as f:
                for line_number, line in enumerate(f, 1):
                    match = INCLUDE.match(line)
                    if not match:
                        continue
                    target = target_of(agent_dir, os.path.dirname(path), match.group(1))
                    if target is None:
                        continue
                    node, target_path = target
                    if node == source or node in allowed or target_path in allowed:
                        continue
                    found.append(f"agent/{path}:{line_number}: {source} includes {target_path} "
                                 f"({node}), an edge scripts/check_agent_includes.py does not allow")
    return found


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    agent_dir = sys.argv[1]
    unknown = sorted({node_of(os.path.relpath(os.path.join(folder, n), agent_dir))
                      for folder, _, names in os.walk(agent_dir) for n in names
                      if n.endswith((".h", ".cpp"))} - set(ALLOWED))
    if unknown:
        print("folders with no row in ALLOWED: " + ", ".join(unknown), file=sys.stderr)
        return 1
    found = violations(agent_dir)
    for line in found:
        print(line, file=sys.stderr)
    if found:
        return 1
    print("agent include directions: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
