. "$(dirname "$0")/case.sh"
mkcase dpkg_log "cat /var/log/dpkg.log" /var/log/dpkg.log
mkcase apt_term_log "cat /var/log/apt/term.log" /var/log/apt/term.log
