. "$(dirname "$0")/case.sh"
# npm install at loglevel silly: a clean install, then a peer-dependency conflict (ERESOLVE)
D=$W/node; mkdir -p $D; cd $D; [ -f package.json ] || npm init -y >/dev/null
rm -rf node_modules package-lock.json
{ npm install pino pino-http winston --loglevel silly; npm install react@17.0.2 react-dom@18.2.0 --loglevel silly; } > $W/npm-silly.log 2>&1
mkcase npm_silly_log "cat npm-silly.log" $W/npm-silly.log
