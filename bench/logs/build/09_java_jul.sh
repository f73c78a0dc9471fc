. "$(dirname "$0")/case.sh"
# a Java 17 service logging via java.util.logging (two-line SimpleFormatter records, stack traces with Caused by)
cd "$(dirname "$0")"
java -Djava.util.logging.config.file=jul.properties InventorySync.java > $W/inventory-sync.log 2>&1
mkcase java_jul_log "cat inventory-sync.log" $W/inventory-sync.log
