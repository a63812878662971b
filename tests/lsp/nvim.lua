-- Neovim's own LSP client against `flowc lsp`, headless: open a file with a
-- mistake, read back its diagnostics, a hover and a definition, and write
-- them as JSON to $FLOWC_NVIM_OUT. Run by tests/lsp/test_nvim.py.
local file = assert(os.getenv("FLOWC_NVIM_FILE"))
local flowc = assert(os.getenv("FLOWC"))
local out = assert(os.getenv("FLOWC_NVIM_OUT"))

vim.cmd("edit " .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()
local config = {
  name = "flowc",
  cmd = { flowc, "lsp" },
  root_dir = vim.fn.fnamemodify(file, ":p:h"),
}
local id
if vim.lsp.start then
  id = vim.lsp.start(config) -- Neovim 0.8 and later
else
  id = vim.lsp.start_client(config) -- Debian 12 ships Neovim 0.7
  vim.lsp.buf_attach_client(buf, id)
end

local result = { client = id ~= nil, diagnostics = {} }
vim.wait(15000, function()
  return #vim.diagnostic.get(buf) > 0
end, 50)
for _, d in ipairs(vim.diagnostic.get(buf)) do
  local code = d.code
  if code == nil and d.user_data and d.user_data.lsp then
    code = d.user_data.lsp.code
  end
  table.insert(result.diagnostics, { line = d.lnum, col = d.col, code = code, message = d.message })
end

-- The position of `needle` on the first line that has it (0-based; ASCII lines).
local function at(needle, delta)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local s = string.find(line, needle, 1, true)
    if s then
      return { line = i - 1, character = s - 1 + (delta or 0) }
    end
  end
end

local uri = vim.uri_from_bufnr(buf)
local function ask(method, position)
  local resp = vim.lsp.buf_request_sync(buf, method, { textDocument = { uri = uri }, position = position }, 15000)
  for _, r in pairs(resp or {}) do
    if r.result then
      return r.result
    end
  end
  return vim.NIL
end
result.hover = ask("textDocument/hover", at("write  totals", 8))
result.definition = ask("textDocument/definition", at("write  totals", 8))
result.sink_line = at("sink totals").line

local f = assert(io.open(out, "w"))
f:write(vim.fn.json_encode(result))
f:close()
vim.lsp.stop_client(id)
vim.wait(2000, function()
  return vim.lsp.get_client_by_id(id) == nil
end, 50)
vim.cmd("qa!")
