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
       "-DEXPECT=opscan_add_kernel_library\\(k\\): opscan refuses TARGET torch, REGISTRATION named, LIB_NAME 'my-ops': 'my-ops' is not a valid C\\+\\+ identifier: U\\+002D '-' at byte 2 cannot appear in an identifier \\[opscan-ident-invalid-char\\] library name 'my-ops' is not a valid C\\+\\+ identifier. did you mean 'my_ops'\\?")
opscan_cmake_test(cmake_config_error_lib_name_all configure_error_test.cmake
  ARGS -DCASE=lib_name_all
       "-DEXPECT=opscan_add_kernel_library\\(k\\): opscan refuses TARGET executorch, REGISTRATION named, LIB_NAME 'all': library name 'all' cannot be used: register_all_kernels is the registration function of the unnamed default library. omit the option to get it, or choose another name \\[opscan-libname-all\\]")
opscan_cmake_test(cmake_config_error_lib_name_keyword configure_error_test.cmake
  ARGS -DCASE=lib_name_keyword
       "-DEXPECT=opscan_add_kernel_library\\(k\\): opscan refuses TARGET torch, REGISTRATION named, LIB_NAME 'for': 'for' is a C\\+\\+ keyword and cannot be used as a name \\[opscan-ident-keyword\\]")
opscan_cmake_test(cmake_config_error_lib_name_duplicate_false_looking_owner configure_error_test.cmake
  ARGS -DCASE=lib_name_duplicate_false_looking_owner
       "-DEXPECT=opscan_add_kernel_library\\(second\\): LIB_NAME 'ops' is already the name of kernel library target 'No'")
opscan_cmake_test(cmake_config_error_lib_name_control_character configure_error_test.cmake
  ARGS -DCASE=lib_name_control_character
       "-DEXPECT=opscan_add_kernel_library\\(k\\): opscan refuses TARGET torch, REGISTRATION named, LIB_NAME 'a.b': 'a\\\\u\\{0009\\}b' is not a valid C\\+\\+ identifier: U\\+0009 \\(<control-0009>\\) at byte 1 cannot appear in an identifier")
opscan_cmake_test(cmake_config_error_lib_name_alternative_token configure_error_test.cmake
  ARGS -DCASE=lib_name_alternative_token
       "-DEXPECT=opscan_add_kernel_library\\(k\\): opscan refuses TARGET torch, REGISTRATION named, LIB_NAME 'and': 'and' is a C\\+\\+ alternative token \\(it means '&&'\\) and cannot be used as a name")
opscan_cmake_test(cmake_config_error_lib_name_digit configure_error_test.cmake
  ARGS -DCASE=lib_name_digit
       "-DEXPECT=opscan_add_kernel_library\\(k\\): opscan refuses TARGET torch, REGISTRATION named, LIB_NAME '2d_ops': '2d_ops' is not a valid C\\+\\+ identifier: U\\+0032 '2' at byte 0 cannot start an identifier")
opscan_cmake_test(cmake_config_error_lib_name_leading_underscore configure_error_test.cmake
  ARGS -DCASE=lib_name_leading_underscore
       "-DEXPECT=opscan_add_kernel_library\\(k\\): opscan refuses TARGET torch, REGISTRATION named, LIB_NAME '_ops': library name '_ops' gives the registration symbol 'register__ops_kernels', which is reserved in C\\+\\+ \\(it contains '__'\\). did you mean 'ops'\\?")
opscan_cmake_test(cmake_config_error_lib_name_trailing_underscore configure_error_test.cmake
  ARGS -DCASE=lib_name_trailing_underscore
       "-DEXPECT=opscan_add_kernel_library\\(k\\): opscan refuses TARGET torch, REGISTRATION named, LIB_NAME 'ops_': library name 'ops_' gives the registration symbol 'register_ops__kernels', which is reserved in C\\+\\+ \\(it contains '__'\\). did you mean 'ops'\\?")
opscan_cmake_test(cmake_config_error_lib_name_double_underscore configure_error_test.cmake
  ARGS -DCASE=lib_name_double_underscore
       "-DEXPECT=opscan_add_kernel_library\\(k\\): opscan refuses TARGET torch, REGISTRATION named, LIB_NAME 'my__ops': 'my__ops' is a reserved identifier in C\\+\\+: it contains '__'")
opscan_cmake_test(cmake_config_error_target_name_not_identifier configure_error_test.cmake
  ARGS -DCASE=target_name_not_identifier
       "-DEXPECT=opscan_add_kernel_library\\(my-kernels\\): opscan refuses TARGET torch, REGISTRATION named and the library name 'my-kernels' \\(the target name: give LIB_NAME <name> to choose another\\): 'my-kernels' is not a valid C\\+\\+ identifier")
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
       "-DEXPECT=opscan_add_kernel_library\\(second\\): REGISTRATION manual defines (torch::executor::)?register_all_kernels\\(\\), which kernel library target 'first' defines too. use REGISTRATION named")
opscan_cmake_test(cmake_config_error_manual_twice_torch configure_error_test.cmake
  ARGS -DCASE=manual_twice_torch
       "-DEXPECT=opscan_add_kernel_library\\(second\\): REGISTRATION manual defines (torch::executor::)?register_all_kernels\\(\\), which kernel library target 'first' defines too. use REGISTRATION named")

# --- TARGET, REGISTRATION, SOURCES and the other options ------------------
opscan_cmake_test(cmake_config_error_target_missing configure_error_test.cmake
  ARGS -DCASE=target_missing
       "-DEXPECT=opscan_add_kernel_library\\(k\\): TARGET is required: the runtime to generate for \\(executorch, executorch-aot, torch or torch-stable\\)")
opscan_cmake_test(cmake_config_error_target_wrong configure_error_test.cmake
  ARGS -DCASE=target_wrong
       "-DEXPECT=opscan_add_kernel_library\\(k\\): opscan refuses TARGET pytorch, REGISTRATION named and the library name 'k' \\(the target name: give LIB_NAME <name> to choose another\\): unknown target 'pytorch' \\(targets: executorch, executorch-aot, torch, torch-stable\\)")
opscan_cmake_test(cmake_config_error_registration_missing configure_error_test.cmake
  ARGS -DCASE=registration_missing
       "-DEXPECT=opscan_add_kernel_library\\(k\\): REGISTRATION is required: static, manual or named")
opscan_cmake_test(cmake_config_error_registration_wrong configure_error_test.cmake
  ARGS -DCASE=registration_wrong
       "-DEXPECT=opscan_add_kernel_library\\(k\\): opscan refuses TARGET torch, REGISTRATION dynamic and the library name 'k' .*: unknown registration mode 'dynamic' \\(modes: static, manual, named\\)")
opscan_cmake_test(cmake_config_error_sources_missing configure_error_test.cmake
  ARGS -DCASE=sources_missing
       "-DEXPECT=opscan_add_kernel_library\\(k\\): SOURCES is required: the annotated kernel sources")
opscan_cmake_test(cmake_config_error_sources_unset_variable configure_error_test.cmake
  ARGS -DCASE=sources_unset_variable
       "-DEXPECT=opscan_add_kernel_library\\(k\\): SOURCES is given but empty \\(an unset variable\\?\\)")
opscan_cmake_test(cmake_config_error_dispatch_key_executorch configure_error_test.cmake
  ARGS -DCASE=dispatch_key_executorch
       "-DEXPECT=opscan_add_kernel_library\\(k\\): opscan refuses TARGET executorch, REGISTRATION named and the library name 'k' .*, DISPATCH_KEY CUDA: a default dispatch_key \\('CUDA'\\) is given, but the executorch target reads no dispatch_key")
opscan_cmake_test(cmake_config_error_static_and_shared configure_error_test.cmake
  ARGS -DCASE=static_and_shared
       "-DEXPECT=opscan_add_kernel_library\\(k\\): give STATIC or SHARED, not both")
opscan_cmake_test(cmake_config_error_aten_mode_torch configure_error_test.cmake
  ARGS -DCASE=aten_mode_torch
       "-DEXPECT=opscan_add_kernel_library\\(k\\): ATEN_MODE is for TARGET executorch \\(ExecuTorch's ATen mode\\); TARGET torch has none")
opscan_cmake_test(cmake_config_error_exception_boundary_torch configure_error_test.cmake
  ARGS -DCASE=exception_boundary_torch
       "-DEXPECT=opscan_add_kernel_library\\(k\\): opscan refuses TARGET torch, REGISTRATION named .*, EXCEPTION_BOUNDARY: --exception-boundary is given, but the torch target has no such option \\(it is for: executorch\\)")
opscan_cmake_test(cmake_config_error_unknown_argument configure_error_test.cmake
  ARGS -DCASE=unknown_argument
       "-DEXPECT=opscan_add_kernel_library\\(k\\): unknown arguments: BOGUS_OPTION")

# --- Positive controls: these must configure -------------------------------
foreach(case minimal manual_executorch_and_torch named_twice lib_name_for_bad_target_name
        all_options)
  opscan_cmake_test(cmake_config_ok_${case} configure_error_test.cmake
    ARGS -DCASE=ok_${case} -DEXPECT_SUCCESS=ON)
endforeach()
