-- wrk script for scripts/load-service.sh: every request is the same personal_sign POST with the bearer
-- token; an answer that is not HTTP 200 with a 65-byte signature result counts as bad. done() prints one
-- machine-readable line (latencies in microseconds) for the shell script.
local token = os.getenv("LOAD_TOKEN") or error("LOAD_TOKEN is not set")
local address = os.getenv("LOAD_ADDRESS") or error("LOAD_ADDRESS is not set")

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. token
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"personal_sign","params":["0x68656c6c6f20776f726c64","'
    .. address .. '"]}'

local threads = {}
function setup(thread) table.insert(threads, thread) end

-- Built once: the check runs for every answer, on the same two cores as the server.
local signature_result = '"result":"0x' .. string.rep("%x", 130) .. '"'

bad = 0
function response(status, headers, body)
    if status ~= 200 or not body:find(signature_result) then
        bad = bad + 1
        if bad == 1 then io.stderr:write("first bad answer: HTTP " .. status .. " " .. body:sub(1, 300) .. "\n") end
    end
end

function done(summary, latency, requests)
    local total_bad = 0
    for _, thread in ipairs(threads) do total_bad = total_bad + thread:get("bad") end
    local e = summary.errors
    io.write(string.format(
        "LOAD requests=%d duration_us=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d bad=%d socket_errors=%d\n",
        summary.requests, summary.duration, latency:percentile(50), latency:percentile(90),
        latency:percentile(99), latency.max, total_bad, e.connect + e.read + e.write + e.status + e.timeout))
end
