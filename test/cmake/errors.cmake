# The configure-time errors of opscan_add_kernel_library(): each test
# configures the errors project (errors/CMakeLists.txt) with one CASE and
# checks the message, which names the target, the option and the offending
# value. EXPECT is a regex matched with every run of white space in CMake's
# output made one space (CMake wraps messages); it cannot contain ';' (add_test
# would split it there): match one with '.'. The cmake_config_ok_* tests are
# the positive controls: those calls must configure.
# Included from test/cmake/CMakeLists.txt, after opscan_cmake_test().

# --- LIB_NAME, and the target name as the default library name ------------
# An explicitly empty LIB_NAME "" fails like an empty ${UNSET} (before CMake
# 3.31, cmake_parse_arguments() drops a keyword whose value is "" without
# listing it in KEYWORDS_MISSING_VALUES); likewise DISPATCH_KEY "" and
# OPERATORS "", which would otherwise mean CPU and every operator.
opscan_cmake_test(cmake_config_error_lib_name_empty configure_error_test.cmake
  ARGS -DCASE=lib_name_empty
       "-DEXPECT=opscan_add_kernel_library\\(k\\): LIB_NAME is given but empty")
opscan_cmake_test(cmake_config_error_dispatch_key_empty configure_error_test.cmake
  ARGS -DCASE=dispatch_key_empty
       "-DEXPECT=opscan_add_kernel_library\\(k\\): DISPATCH_KEY is given but empty")
opscan_cmake_test(cmake_config_error_operators_empty configure_error_test.cmake
  ARGS -DCASE=operators_empty
       "-DEXPECT=opscan_add_kernel_library\\(k\\): OPERATORS is given but empty")

opscan_cmake_test(cmake_config_error_lib_name_unset_variable configure_error_test.cmake
  ARGS -DCASE=lib_name_unset_variable
       "-DEXPECT=opscan_add_kernel_library\\(k\\): LIB_NAME is given but empty \\(an unset variable\\?\\)")
opscan_cmake_test(cmake_config_error_lib_name_dash configure_error_test.cmake
  ARGS -DCASE=lib_name_dash
       "-DEXPECT=opscan_add_kernel_library\\(k\\): LIB_NAME 'my-ops' cannot name a kernel library: it contains '-'\\. Did you mean 'my_ops'\\?")
opscan_cmake_test(cmake_config_error_lib_name_all configure_error_test.cmake
  ARGS -DCASE=lib_name_all
       "-DEXPECT=opscan_add_kernel_library\\(k\\): LIB_NAME 'all' cannot name a kernel library: 'all' is the name of the unnamed default library\\. Did you mean 'all_ops'\\?")
opscan_cmake_test(cmake_config_error_lib_name_keyword configure_error_test.cmake
  ARGS -DCASE=lib_name_keyword
       "-DEXPECT=opscan_add_kernel_library\\(k\\): LIB_NAME 'for' cannot name a kernel library: it is a C\\+\\+ keyword\\. Did you mean 'for_ops'\\?")
opscan_cmake_test(cmake_config_error_lib_name_duplicate_false_looking_owner configure_error_test.cmake
  ARGS -DCASE=lib_name_duplicate_false_looking_owner
       "-DEXPECT=opscan_add_kernel_library\\(second\\): LIB_NAME 'ops' is already the name of kernel library target 'No'")
opscan_cmake_test(cmake_config_error_lib_name_control_character configure_error_test.cmake
  ARGS -DCASE=lib_name_control_character
       "-DEXPECT=opscan_add_kernel_library\\(k\\): LIB_NAME 'a.b' cannot name a kernel library: it contains")
opscan_cmake_test(cmake_config_error_lib_name_alternative_token configure_error_test.cmake
  ARGS -DCASE=lib_name_alternative_token
       "-DEXPECT=opscan_add_kernel_library\\(k\\): LIB_NAME 'and' cannot name a kernel library: it is a C\\+\\+ alternative token\\. Did you mean 'and_ops'\\?")
opscan_cmake_test(cmake_config_error_lib_name_digit configure_error_test.cmake
  ARGS -DCASE=lib_name_digit
       "-DEXPECT=opscan_add_kernel_library\\(k\\): LIB_NAME '2d_ops' cannot name a kernel library: it starts with a digit\\. Did you mean 'lib_2d_ops'\\?")
opscan_cmake_test(cmake_config_error_lib_name_leading_underscore configure_error_test.cmake
  ARGS -DCASE=lib_name_leading_underscore
       "-DEXPECT=opscan_add_kernel_library\\(k\\): LIB_NAME '_ops' cannot name a kernel library: register__ops_kernels would be a reserved identifier \\(it would contain '__'\\)\\. Did you mean 'ops'\\?")
opscan_cmake_test(cmake_config_error_lib_name_trailing_underscore configure_error_test.cmake
  ARGS -DCASE=lib_name_trailing_underscore
       "-DEXPECT=opscan_add_kernel_library\\(k\\): LIB_NAME 'ops_' cannot name a kernel library: register_ops__kernels would be a reserved identifier \\(it would contain '__'\\)\\. Did you mean 'ops'\\?")
opscan_cmake_test(cmake_config_error_lib_name_double_underscore configure_error_test.cmake
  ARGS -DCASE=lib_name_double_underscore
       "-DEXPECT=opscan_add_kernel_library\\(k\\): LIB_NAME 'my__ops' cannot name a kernel library: register_my__ops_kernels would be a reserved identifier \\(it would contain '__'\\)\\. Did you mean 'my_ops'\\?")
opscan_cmake_test(cmake_config_error_target_name_not_identifier configure_error_test.cmake
  ARGS -DCASE=target_name_not_identifier
       "-DEXPECT=opscan_add_kernel_library\\(my-kernels\\): the target name 'my-kernels' is the default library name, and it cannot name a kernel library: it contains '-'\\. Pass LIB_NAME <name> \\(for example LIB_NAME my_kernels\\)")
opscan_cmake_test(cmake_config_error_lib_name_duplicate configure_error_test.cmake
  ARGS -DCASE=lib_name_duplicate
       "-DEXPECT=opscan_add_kernel_library\\(second\\): LIB_NAME 'ops' is already the name of kernel library target 'first'. each kernel library needs its own name")
opscan_cmake_test(cmake_config_error_lib_name_is_other_target_name configure_error_test.cmake
  ARGS -DCASE=lib_name_is_other_target_name
       "-DEXPECT=opscan_add_kernel_library\\(second\\): LIB_NAME 'ops' is already the name of kernel library target 'ops'. each kernel library needs its own name")
opscan_cmake_test(cmake_config_error_target_name_is_other_lib_name configure_error_test.cmake
  ARGS -DCASE=target_name_is_other_lib_name
       "-DEXPECT=opscan_add_kernel_library\\(ops\\): the library name 'ops' \\(the target name\\) is already the name of kernel library target 'first'. each kernel library needs its own name")

# --- REGISTRATION manual: one register_all_kernels() per runtime ----------
opscan_cmake_test(cmake_config_error_manual_twice_executorch configure_error_test.cmake
  ARGS -DCASE=manual_twice_executorch
       "-DEXPECT=opscan_add_kernel_library\\(second\\): REGISTRATION manual defines register_all_kernels\\(\\), which kernel library target 'first' defines too. use REGISTRATION named")
opscan_cmake_test(cmake_config_error_manual_twice_torch configure_error_test.cmake
  ARGS -DCASE=manual_twice_torch
       "-DEXPECT=opscan_add_kernel_library\\(second\\): REGISTRATION manual defines register_all_kernels\\(\\), which kernel library target 'first' defines too. use REGISTRATION named")

# --- TARGET, REGISTRATION, SOURCES and the other options ------------------
opscan_cmake_test(cmake_config_error_target_missing configure_error_test.cmake
  ARGS -DCASE=target_missing
       "-DEXPECT=opscan_add_kernel_library\\(k\\): TARGET is required: executorch or torch")
opscan_cmake_test(cmake_config_error_target_wrong configure_error_test.cmake
  ARGS -DCASE=target_wrong
       "-DEXPECT=opscan_add_kernel_library\\(k\\): TARGET must be executorch or torch, not 'pytorch'")
opscan_cmake_test(cmake_config_error_registration_missing configure_error_test.cmake
  ARGS -DCASE=registration_missing
       "-DEXPECT=opscan_add_kernel_library\\(k\\): REGISTRATION is required: static, manual or named")
opscan_cmake_test(cmake_config_error_registration_wrong configure_error_test.cmake
  ARGS -DCASE=registration_wrong
       "-DEXPECT=opscan_add_kernel_library\\(k\\): REGISTRATION must be static, manual or named, not 'dynamic'")
opscan_cmake_test(cmake_config_error_sources_missing configure_error_test.cmake
  ARGS -DCASE=sources_missing
       "-DEXPECT=opscan_add_kernel_library\\(k\\): SOURCES is required: the annotated kernel sources")
opscan_cmake_test(cmake_config_error_sources_unset_variable configure_error_test.cmake
  ARGS -DCASE=sources_unset_variable
       "-DEXPECT=opscan_add_kernel_library\\(k\\): SOURCES is given but empty \\(an unset variable\\?\\)")
opscan_cmake_test(cmake_config_error_dispatch_key_executorch configure_error_test.cmake
  ARGS -DCASE=dispatch_key_executorch
       "-DEXPECT=opscan_add_kernel_library\\(k\\): DISPATCH_KEY 'CUDA' applies to TARGET torch only, not TARGET executorch")
opscan_cmake_test(cmake_config_error_static_and_shared configure_error_test.cmake
  ARGS -DCASE=static_and_shared
       "-DEXPECT=opscan_add_kernel_library\\(k\\): give STATIC or SHARED, not both")
opscan_cmake_test(cmake_config_error_unknown_argument configure_error_test.cmake
  ARGS -DCASE=unknown_argument
       "-DEXPECT=opscan_add_kernel_library\\(k\\): unknown arguments: BOGUS_OPTION")

# --- Positive controls: these must configure -------------------------------
foreach(case minimal manual_executorch_and_torch named_twice lib_name_for_bad_target_name
        all_options)
  opscan_cmake_test(cmake_config_ok_${case} configure_error_test.cmake
    ARGS -DCASE=ok_${case} -DEXPECT_SUCCESS=ON)
endforeach()
