#!/usr/bin/env python3
"""Reports Swift source files over a line limit and functions (func, init, deinit, subscript, accessor blocks) over a
line limit. A function's length is counted from the line of its declaration keyword to the line of its closing brace,
with braces matched outside comments, string literals (single-line, multi-line and raw) and character data.

Usage: scripts/code-size.py [--file-limit N] [--function-limit N] [PATH ...]   (default: Sources Tests)
Exit status 1 when something is over a limit, 2 when a PATH does not exist, else 0."""
import argparse, os, re, sys

DECL = re.compile(r'\b(func\s+[^\s(<]+|init[?!]?\s*[(<]|deinit\b|subscript\s*[(<]|var\s+\w+\s*:[^=\n{]+(?=\{))')

def strip_code(text):
    """Returns text with comments and string contents blanked (newlines kept), so braces can be matched."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i)); i = j
        elif text.startswith('/*', i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith('/*', j): depth += 1; j += 2
                elif text.startswith('*/', j): depth -= 1; j += 2
                else: j += 1
            out.append(re.sub(r'[^\n]', ' ', text[i:j])); i = j
        elif c == '#' or c == '"':
            k = i
            while k < n and text[k] == '#': k += 1
            hashes = k - i
            if k >= n or text[k] != '"':
                out.append(c); i += 1; continue
            multi = text.startswith('"""', k)
            quote = '"""' if multi else '"'
            close = quote + '#' * hashes
            j = k + len(quote)
            while j < n:
                if hashes == 0 and text[j] == '\\':
                    if text.startswith('\\(', j):
                        depth, j = 1, j + 2
                        while j < n and depth:
                            if text[j] == '(': depth += 1
                            elif text[j] == ')': depth -= 1
                            j += 1
                        continue
                    j += 2; continue
                if text.startswith(close, j): j += len(close); break
                if not multi and text[j] == '\n': break
                j += 1
            out.append(re.sub(r'[^\n]', ' ', text[i:j])); i = j
        else:
            out.append(c); i += 1
    return ''.join(out)

def functions(code):
    """Yields (name, first line, last line) for each declaration with a body."""
    line_starts = [0]
    for m in re.finditer('\n', code): line_starts.append(m.end())
    def line_of(pos):
        lo, hi = 0, len(line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if line_starts[mid] <= pos: lo = mid
            else: hi = mid - 1
        return lo + 1
    for m in DECL.finditer(code):
        # The body starts at the first '{' after the declaration whose parentheses and angle brackets are closed.
        j, depth = m.end() - (1 if code[m.end() - 1] in '(<' else 0), 0
        if m.group(1).startswith('var'):
            j = m.end()
        while j < len(code):
            ch = code[j]
            if ch in '([': depth += 1
            elif ch in ')]': depth -= 1
            elif ch == '{' and depth == 0: break
            elif ch in ';\n' and depth == 0 and ch == ';': j = -1; break
            elif depth == 0 and code.startswith('func ', j) and j > m.end(): j = -1; break
            j += 1
        if j < 0 or j >= len(code): continue
        # Protocol requirements have no body: a newline-separated next declaration before any '{'.
        between = code[m.end():j]
        if re.search(r'\n\s*(public |package |internal |private |fileprivate |@\w+ |static |mutating |func |var |let |init|case |}|//)', between):
            continue
        brace, k = 0, j
        while k < len(code):
            if code[k] == '{': brace += 1
            elif code[k] == '}':
                brace -= 1
                if brace == 0: break
            k += 1
        yield m.group(1).split(':')[0].strip(' ({<'), line_of(m.start()), line_of(k)

def swift_files(paths):
    """Yields each .swift file named in paths, or under a folder named there, in a stable order."""
    for root in paths:
        if os.path.isfile(root):
            if root.endswith('.swift'): yield root
            continue
        for dirpath, dirnames, names in os.walk(root):
            dirnames.sort()
            for name in sorted(names):
                if name.endswith('.swift'): yield os.path.join(dirpath, name)

def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--file-limit', type=int, default=500)
    p.add_argument('--function-limit', type=int, default=80)
    p.add_argument('paths', nargs='*', default=['Sources', 'Tests'])
    a = p.parse_args()
    over, files, funcs, longest = 0, 0, 0, (0, '')
    missing = [root for root in a.paths if not os.path.exists(root)]
    if missing:
        print(f'code-size.py: no such file or folder: {", ".join(missing)}', file=sys.stderr)
        return 2
    for path in swift_files(a.paths):
        text = open(path, encoding='utf-8').read()
        lines = text.count('\n') + (0 if text.endswith('\n') else 1)
        files += 1
        if lines > a.file_limit:
            over += 1; print(f'{path}: {lines} lines (file limit {a.file_limit})')
        for fname, first, last in functions(strip_code(text)):
            funcs += 1
            length = last - first + 1
            if length > longest[0]: longest = (length, f'{path}:{first} {fname}')
            if length > a.function_limit:
                over += 1; print(f'{path}:{first}: {fname} is {length} lines (function limit {a.function_limit})')
    print(f'{files} files, {funcs} functions; longest function: {longest[0]} lines ({longest[1]}); {over} over a limit')
    return 1 if over else 0

if __name__ == '__main__':
    sys.exit(main())
