# cmake -DDAEMON=path/to/cuzk-daemon -DOUT=file -P print_config.cmake: writes the example
# configuration (the daemon's defaults, as --print-config prints them) to OUT, with the directories
# a daemon run by root uses (the user who builds it may be another).
execute_process(
  COMMAND ${DAEMON} --print-config --listen unix:/run/cuzk/cuzk.sock --param-cache-dir /var/cache/cuzk/params
          --spool-dir /var/lib/cuzk/spool
  OUTPUT_FILE ${OUT}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${DAEMON} --print-config failed (${rc})")
endif()
