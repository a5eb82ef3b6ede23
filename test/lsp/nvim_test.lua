-- `opscan lsp` in Neovim's built-in LSP client (the 0.7 API Debian ships):
-- open the scenario's kernel file (test/lsp/scenario), check the published
-- diagnostics, apply each quick fix the way `vim.lsp.buf.code_action` does,
-- and check the buffer, the saved file and the cleared diagnostics; then a
-- hover, and shutdown with exit code 0. Run by CTest:
--   nvim --headless --clean -c "luafile test/lsp/nvim_test.lua"
-- with OPSCAN_BINARY and OPSCAN_SOURCE_DIR set. Exits 0 when all holds, 1
-- with the reason on stderr otherwise; every wait is bounded.

local WAIT_MS = 60000

local function finish(code, message)
  io.stderr:write(message .. '\n')
  vim.cmd('cquit ' .. code)
end

local function fail(message)
  error({ failed = message }, 0)
end

local function check(condition, message)
  if not condition then
    fail(message)
  end
end

local function wait(what, condition)
  if not vim.wait(WAIT_MS, condition, 10) then
    fail('timed out after ' .. WAIT_MS .. ' ms waiting for ' .. what)
  end
end

local function read_file(path)
  local f = assert(io.open(path, 'rb'))
  local text = f:read('*a')
  f:close()
  return text
end

local function write_file(path, text)
  local f = assert(io.open(path, 'wb'))
  f:write(text)
  f:close()
end

local function show(d)
  return string.format('%s %d:%d-%d:%d', d.code, d.lnum, d.col, d.end_lnum, d.end_col)
end

local function run()
  local binary = os.getenv('OPSCAN_BINARY')
  local source_dir = os.getenv('OPSCAN_SOURCE_DIR')
  check(binary and source_dir, 'set OPSCAN_BINARY and OPSCAN_SOURCE_DIR (CTest does)')
  local scenario = source_dir .. '/test/lsp/scenario'
  local expected = vim.fn.json_decode(read_file(scenario .. '/expected.json'))

  -- A fresh workspace: the kernel file and its compilation database.
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  local file = dir .. '/kernels.cpp'
  write_file(file, read_file(scenario .. '/kernels.cpp'))
  write_file(dir .. '/compile_commands.json', vim.fn.json_encode({ {
    directory = dir,
    file = file,
    arguments = { 'c++', '-std=c++17', '-I' .. source_dir .. '/include',
      '-I' .. source_dir .. '/examples/include', '-c', file },
  } }))

  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buffer = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(buffer)

  -- The version of the latest diagnostics, to wait for those of an edit.
  local published = {}
  local exit_code
  local client_id = vim.lsp.start_client({
    name = 'opscan',
    cmd = { binary, 'lsp' },
    root_dir = dir,
    init_options = { debounceMs = 10 },
    flags = { debounce_text_changes = 0 },
    handlers = {
      ['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
        vim.lsp.diagnostic.on_publish_diagnostics(err, result, ctx, config)
        published[result.uri] = result.version
      end,
    },
    on_exit = function(code)
      exit_code = code
    end,
  })
  check(client_id, 'vim.lsp.start_client failed')
  vim.lsp.buf_attach_client(buffer, client_id)
  local client = vim.lsp.get_client_by_id(client_id)
  local namespace = vim.lsp.diagnostic.get_namespace(client_id)

  local function current_diagnostics()
    wait('the diagnostics of buffer version ' .. tostring(vim.lsp.util.buf_versions[buffer]), function()
      local version = vim.lsp.util.buf_versions[buffer]
      return version ~= nil and published[uri] == version
    end)
    local diagnostics = vim.diagnostic.get(buffer, { namespace = namespace })
    table.sort(diagnostics, function(a, b)
      return show(a) < show(b)
    end)
    return diagnostics
  end

  -- The published problems: codes and exact positions (the file is ASCII,
  -- so Neovim's byte columns are the server's UTF-16 ones).
  local diagnostics = current_diagnostics()
  local got, want = {}, {}
  for _, d in ipairs(diagnostics) do
    table.insert(got, show(d))
    check(d.source == 'opscan', show(d) .. ': source ' .. tostring(d.source))
    local href = d.user_data and d.user_data.lsp.codeDescription and d.user_data.lsp.codeDescription.href
    check(href and vim.endswith(href, '#' .. d.code), show(d) .. ': codeDescription.href ' .. tostring(href))
  end
  for _, p in ipairs(expected.problems) do
    table.insert(want, string.format('%s %d:%d-%d:%d', p.code, p.range.start.line, p.range.start.character,
      p.range['end'].line, p.range['end'].character))
  end
  table.sort(want)
  check(vim.deep_equal(got, want), 'diagnostics: got\n  ' .. table.concat(got, '\n  ') .. '\nwant\n  ' ..
    table.concat(want, '\n  '))

  -- Each problem's quick fix, asked and applied as code_action does, one
  -- at a time (each edit is for the text the last one left).
  local fixed = {}
  for _ = 1, #expected.problems + 2 do
    if #diagnostics == 0 then
      break
    end
    local d = diagnostics[1]
    local range = { start = { line = d.lnum, character = d.col }, ['end'] = { line = d.end_lnum, character = d.end_col } }
    local lsp_diagnostic = { range = range, severity = d.severity, code = d.code, source = d.source, message = d.message }
    local answers, err = vim.lsp.buf_request_sync(buffer, 'textDocument/codeAction', {
      textDocument = { uri = uri },
      range = range,
      context = { diagnostics = { lsp_diagnostic } },
    }, WAIT_MS)
    check(answers and answers[client_id], 'no answer to textDocument/codeAction: ' .. tostring(err))
    check(not answers[client_id].err, 'codeAction failed: ' .. vim.inspect(answers[client_id].err))
    local action
    for _, a in ipairs(answers[client_id].result or {}) do
      if a.kind == 'quickfix' and a.edit then
        for _, ad in ipairs(a.diagnostics or {}) do
          if ad.code == d.code then
            action = action or a
          end
        end
      end
    end
    check(action, 'no quick fix for ' .. show(d) .. ' in ' .. vim.inspect(answers[client_id].result))
    vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding)
    table.insert(fixed, d.code)
    diagnostics = current_diagnostics()
  end
  check(#diagnostics == 0, 'diagnostics left after the fixes: ' .. vim.inspect(vim.tbl_map(show, diagnostics)))
  check(#fixed == #expected.problems, 'fixed ' .. table.concat(fixed, ', '))

  -- The buffer is exactly the fixed file, and so is what Neovim writes.
  local fixed_text = read_file(scenario .. '/kernels.fixed.cpp')
  local lines = vim.api.nvim_buf_get_lines(buffer, 0, -1, true)
  local want_lines = vim.split(fixed_text, '\n', { plain = true })
  table.remove(want_lines) -- after the last newline
  for i = 1, math.max(#lines, #want_lines) do
    check(lines[i] == want_lines[i], string.format('line %d of the buffer is\n  %s\nnot\n  %s', i,
      tostring(lines[i]), tostring(want_lines[i])))
  end
  vim.cmd('write')
  check(read_file(file) == fixed_text, 'the written file differs from kernels.fixed.cpp')

  -- A hover on the kernel's name shows its schema.
  local hovers = vim.lsp.buf_request_sync(buffer, 'textDocument/hover', {
    textDocument = { uri = uri },
    position = expected.hover.position,
  }, WAIT_MS)
  local hover = hovers and hovers[client_id] and hovers[client_id].result
  check(hover and hover.contents.kind == 'markdown', 'no markdown hover: ' .. vim.inspect(hovers))
  check(hover.contents.value:find(expected.hover.schema, 1, true),
    'the hover lacks the schema ' .. expected.hover.schema .. ':\n' .. hover.contents.value)

  -- shutdown, then exit.
  vim.lsp.stop_client(client_id)
  wait('the server to exit', function()
    return exit_code ~= nil
  end)
  check(exit_code == 0, 'the server exited with code ' .. tostring(exit_code))
  vim.fn.delete(dir, 'rf')
  return #fixed
end

local ok, result = xpcall(run, function(e)
  if type(e) == 'table' and e.failed then
    return e.failed
  end
  return debug.traceback(tostring(e))
end)
if ok then
  finish(0, 'nvim_test: passed (' .. result .. ' problems fixed in Neovim ' .. tostring(vim.version().minor) .. ')')
else
  finish(1, 'nvim_test: FAILED: ' .. result)
end
