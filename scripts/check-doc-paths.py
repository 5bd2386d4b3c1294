#!/usr/bin/env python3
"""Checks that every file a document names exists.

Usage: scripts/check-doc-paths.py [DOC ...] (default: ARCHITECTURE.md). A backticked name ending in .swift, .c,
.md or .sh counts: with a slash it must exist from the repository root, without one some file of that name must
exist under Sources/. A backticked folder (Sources/..., Tests/...) must exist too. Exit 1 and a list when any is
missing.
"""
import os
import re
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
docs = sys.argv[1:] or ["ARCHITECTURE.md"]
names = set()
for base, _, files in os.walk(os.path.join(root, "Sources")):
    names.update(files)
missing = []
for doc in docs:
    text = open(os.path.join(root, doc), encoding="utf-8").read()
    for token in re.findall(r"`([^`\s]+)`", text):
        if re.search(r"\.(swift|c|md|sh)$", token):
            ok = os.path.exists(os.path.join(root, token)) if "/" in token else token in names
        elif re.match(r"(Sources|Tests|scripts)/", token):
            ok = os.path.exists(os.path.join(root, token))
        else:
            continue
        if not ok:
            missing.append(f"{doc}: {token}")
for line in missing:
    print("missing:", line)
sys.exit(1 if missing else 0)
