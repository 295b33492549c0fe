"""Write nyt-1976-01-01.puz from nyt-1976-01-01.json through puzpy (see SOURCES.md).

No binary .puz file could be retrieved from a public repository here (only text is
served), so the .puz fixture is the published NYT grid of 1 January 1976, its answers and
clues, written by puzpy the way Across Lite files are written.  Run from this folder:
``python make_puz.py``.
"""
import json
import re

import puz

data = json.load(open("nyt-1976-01-01.json", encoding="utf-8"))
p = puz.Puzzle()
p.width, p.height = data["size"]["cols"], data["size"]["rows"]
p.solution = "".join("." if c == "." else c[0] for c in data["grid"])
p.fill = "".join("." if c == "." else "-" for c in data["grid"])
p.title, p.author, p.copyright = data["title"], data["author"], "\u00a9 " + data["copyright"]
numbered = []
for direction in ("across", "down"):
    for clue in data["clues"][direction]:
        number, text = re.match(r"(\d+)\.\s*(.*)", clue).groups()
        numbered.append((int(number), direction == "down", text))
p.clues = [text for _, _, text in sorted(numbered)]
p.save("nyt-1976-01-01.puz")
