"""Here-documents in a shell script (``cmd <<EOF`` … ``EOF``): set apart from the script's own lines, to be read
as what the command does with them — a manifest ``kubectl apply -f -`` applies, a script ``bash`` or ``ssh`` runs,
a program ``python -`` runs, a file ``cat > run.sh`` writes.

What a here-document holds follows the bash manual ("Here Documents"): with the delimiter quoted (``<<'EOF'``,
``<<"EOF"``, ``<<\\EOF``) its lines are taken as they are; otherwise they are expanded (``$X``, ``${X}``,
``$((…))``, ``$(…)``; a ``\\`` before ``$``, `````, ``\\`` or a newline is removed, and the quotes are characters).
``<<-`` strips the lines' leading tabs.  A here-string (``<<<``) is not one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

__all__ = ["HereDocument", "continues", "expanded_body", "operators", "set_apart", "unescaped"]

_DELIMITER = re.compile(r"(-?)[ \t]*(?:'([^']*)'|\"([^\"]*)\"|(\\?)([^\s;&|<>()'\"]+))")


@dataclass
class HereDocument:
    """One here-document: the line of its operator, its delimiter, whether it is quoted, and its lines."""

    line: int
    delimiter: str
    quoted: bool
    strip_tabs: bool
    body: list[tuple[int, str]] = field(default_factory=list)


def operators(text: str) -> list[tuple[int, int, HereDocument]]:
    """The here-document operators of one line (outside quotes and comments), each with its span in ``text``
    (the operator and its delimiter word)."""
    if "<<" not in text:
        return []
    found: list[tuple[int, int, HereDocument]] = []
    quote, i = "", 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 2
                continue
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "\\":
            i += 2
            continue
        elif c == "#" and (i == 0 or text[i - 1] in " \t;&|"):
            break
        elif text.startswith("<<", i) and not text.startswith("<<<", i) and (i == 0 or text[i - 1] != "<"):
            m = _DELIMITER.match(text, i + 2)
            if m is not None:
                word = next(g for g in (m.group(2), m.group(3), m.group(5)) if g is not None)
                quoted = m.group(2) is not None or m.group(3) is not None or bool(m.group(4))
                found.append((i, m.end(), HereDocument(0, word, quoted, bool(m.group(1)))))
                i = m.end()
                continue
        i += 1
    return found


def set_apart(lines: list[tuple[int, str]]) -> tuple[list[tuple[int, str]], list[HereDocument]]:
    """The script's lines without its here-documents' bodies and delimiter lines, and the here-documents in the
    order their operators appear.  A body that is never ended runs to the end of the text, as bash reads it."""
    if not any("<<" in text for _, text in lines):
        return lines, []
    kept: list[tuple[int, str]] = []
    documents: list[HereDocument] = []
    pending: list[HereDocument] = []
    for lineno, text in lines:
        if pending:
            document = pending[0]
            ending = text.lstrip("\t") if document.strip_tabs else text
            if ending.rstrip("\r") == document.delimiter:
                pending.pop(0)
            else:
                document.body.append((lineno, text.lstrip("\t") if document.strip_tabs else text))
            continue
        kept.append((lineno, text))
        for _, _, document in operators(text):
            document.line = lineno
            documents.append(document)
            pending.append(document)
    return kept, documents


def continues(text: str) -> bool:
    """Whether a line goes on on the next: it ends in a backslash that no other escapes (an odd number of them;
    a blank after the backslash escapes the blank, and the line ends)."""
    return (len(text) - len(text.rstrip("\\"))) % 2 == 1


def expanded_body(document: HereDocument) -> list[tuple[int, str]]:
    """The body as the shell hands it on before expansion: an unquoted one's ``\\``-newline joins lines."""
    if document.quoted:
        return list(document.body)
    out: list[tuple[int, str]] = []
    joined: Optional[tuple[int, str]] = None
    for lineno, text in document.body:
        if joined is not None:
            lineno, text = joined[0], joined[1] + text
            joined = None
        if continues(text):
            joined = (lineno, text[:-1])
            continue
        out.append((lineno, text))
    if joined is not None:
        out.append(joined)
    return out


def unescaped(text: str, literal_dollar: str) -> str:
    """An unquoted body line's backslashes as the shell removes them before expanding it: ``\\$`` is a ``$`` no
    expansion takes (``literal_dollar``), ``\\```` and ``\\\\`` the character; any other backslash stays."""
    if "\\" not in text:
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in "$`\\":
            out.append(literal_dollar if text[i + 1] == "$" else text[i + 1])
            i += 2
            continue
        out.append(text[i])
        i += 1
    return "".join(out)
