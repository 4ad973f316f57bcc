-- wrk script: GET /files with a random fileName substring (3 to 8 characters of a word the
-- seeder uses) and a random limit per request, so nearly every request misses the read
-- cache and measures the SQLite trigram search itself.
local words = {
  "annual", "report", "invoice", "holiday", "photo", "contract", "draft", "budget",
  "meeting", "notes", "presentation", "banner", "summer", "winter", "project", "design",
  "receipt", "backup", "export", "customer", "product", "catalog", "proposal", "roadmap",
  "mockup", "screenshot", "recording", "podcast", "interview", "wedding", "garden",
  "kitchen", "office", "quarterly", "weekly", "minutes", "agenda", "policy", "manual",
  "release", "changelog", "brochure", "flyer", "poster", "portrait", "landscape", "sunset",
}
math.randomseed(os.time())
request = function()
  local w = words[math.random(#words)]
  local len = math.random(3, math.min(8, #w))
  local start = math.random(1, #w - len + 1)
  local needle = string.sub(w, start, start + len - 1)
  local path = "/files?fileName=" .. needle .. "&limit=" .. math.random(1, 100)
  return wrk.format("GET", path)
end
