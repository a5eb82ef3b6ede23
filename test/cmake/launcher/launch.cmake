# Included after project() (CMAKE_PROJECT_INCLUDE): every custom command of
# the project, and so every opscan step, goes through the launcher.
set_property(GLOBAL PROPERTY RULE_LAUNCH_CUSTOM
             "${CMAKE_CURRENT_LIST_DIR}/launcher.sh ${CMAKE_BINARY_DIR}/launched.log")
