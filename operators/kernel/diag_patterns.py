"""The patterns of the diagnostics type that its kernel twins match too, as bytes, each written once.

``operators.types.diagnostics`` compiles them on first use (``relazy.lazy``); ``operators.kernel.diag_twins``
(which sits below the content types and cannot import them) with ``re``. A leaf: it imports nothing."""

SEV = rb"(?:fatal error|error|warning|note|info|information|hint|remark|convention|refactor)"
# path:line[:col] then ":" or " - " (the path has no spaces, parentheses or colons), after an indent
LOC = rb"^(\s*)((?:[A-Za-z]:)?[^\s:()][^\s:()]*?):(\d+)(?::(\d+))?(?::| -) ?(.*)$"
# LOC with no indent, over a whole input (re.M)
LOC_LINES = rb"^()((?:[A-Za-z]:)?[^\s:()][^\s:()]*?):(\d+)(?::(\d+))?(?::| -) ?(.*)$"
TSC = rb"^((?:[A-Za-z]:)?[^\s()][^()]*?)\((\d+),(\d+)\): (error|warning|message) (TS\d+): "
STYLISH = rb"^\s+(\d+):(\d+)\s+(error|warning)\s+(.*?)(?:\s{2,}\(?(@?[\w/@.-]+)\)?)?\s*$"  # yamllint: (rule)
RUST_HEAD = rb"^(" + SEV + rb")(?:\[([\w:-]+)\])?: (.+)$|^([A-Z]{1,4}\d{2,4}) (?:\[\*\] )?(.+)$"
# RUST_HEAD's line then an ``-->`` line, over a whole input (re.M)
RUST_BLOCK = (rb"(?:" + RUST_HEAD + rb")\n[ \t\r\x0b\x0c]*--> ((?:[A-Za-z]:)?[^\s:]+):(\d+)(?::(\d+))?"
              rb"[ \t\r\x0b\x0c]*$")
SUMMARY = (
    rb"^(?:Found \d+ errors?|Success: no issues|All checks passed|\[\*\] \d+ fixable|\d+ (?:errors?|problems?)\b"
    rb"|\xe2\x9c\x96 \d+ problems?|\s+\d+ errors? and \d+ warnings? potentially fixable|Your code has been rated"
    rb"|-{10,}\s*$|(?:error|warning): (?:aborting due to|could not compile|\d+ warnings? emitted|`[^`]+` \(\w+\) generated)"
    rb"|\d+ errors?, \d+ warnings?|\d+ warnings? generated|Errors\s+Files$|\s+Finished "
    rb"|\d+ problems?$|\d+ warnings?$|only showing the first \d+ (?:errors|warnings), of \d+ total"
    rb"|Found \d+ warnings? and \d+ errors?|Finished in \S+ on \d+ files?)"
)
LINT = rb"^\s*= note: `#\[(?:warn|deny)\(([\w:]+)\)\]` on by default|^\s*= help: for further information visit \S+#(\w+)$"
TRAIL_CODE = rb"\[(?:Error|Warning)/([\w@/.-]+)\]\s*$|\[([\w:./@-]+)\]\s*$|\((report\w+)\)\s*$|\(([a-z]+(?:-[a-z]+)+)\)\s*$"
PROGRESS = (rb"^\s+(?:Compiling|Checking|Downloaded|Downloading|Fresh|Updating|Locking|Adding|Blocking"
            rb"|Unpacking|Documenting) \S+ v?\d|^\s+Downloaded \d+ crates?")
CARET = rb"^\s*\^\s*$"
INDENT = rb"(?:[ \t]|\xc2\xa0)*"  # pyright indents its elaboration with no-break spaces
ODD_FIRST = b"0123456789x!\xc3\xe2\x0b\x0c"  # how a line another form of ``_head`` may take can start after its indent
LOC_TAIL = rb":\d+(?::\d+)?(?=:| -)"  # LOC's line and column after its path, as a place keeps them
