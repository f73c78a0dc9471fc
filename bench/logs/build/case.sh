# helper: mkcase NAME "CMD" SRCFILE
mkcase() { mkdir -p /tmp/logs-fresh/$1; printf '%s\n' "$2" > /tmp/logs-fresh/$1/cmd; cp "$3" /tmp/logs-fresh/$1/input; echo "$1 $(stat -c %s /tmp/logs-fresh/$1/input)"; }
W=/tmp/lfb
