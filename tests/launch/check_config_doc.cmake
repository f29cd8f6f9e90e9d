# Fails when docs/config.md differs from what `tern-info --markdown` prints.
execute_process(COMMAND ${TERN_INFO} --markdown OUTPUT_VARIABLE table RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tern-info --markdown failed")
endif()
file(READ ${DOC} doc)
string(FIND "${doc}" "${table}" pos)
if(pos EQUAL -1)
  message(FATAL_ERROR "docs/config.md is out of date: regenerate the table with "
                      "`tern-info --markdown` (see the note at the top of the file)")
endif()
