/// The Lua scripts behind `RedisSharedState`'s decisions. Each reads the server's clock (`TIME`),
/// so that every process agrees whatever its own clock says, and gives each key it writes an
/// expiry: a key outlives its use by at most an hour, and lives 30 days at most (an expiry
/// Redis cannot read, such as `1e+20`, would fail the script after its writes).
enum RedisScripts {
    /// The server's time in seconds, and the effects replication older servers need before it.
    private static let now = """
        if redis.replicate_commands then redis.replicate_commands() end
        local clock = redis.call('TIME')
        local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
        """

    /// KEYS: bucket, pause. ARGV: rate (0: none), capacity, seconds the send may wait.
    /// Returns {wait µs (-1: no token in time), pause left µs}.
    static let reserveTurn = RedisScript(now + """

        local pttl = redis.call('PTTL', KEYS[2])
        local paused = 0
        if pttl > 0 then paused = pttl / 1000 end
        local rate, capacity, within = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
        if rate <= 0 then return {0, math.floor(paused * 1000000)} end
        local bucket = redis.call('HMGET', KEYS[1], 't', 'u')
        local tokens, updated = tonumber(bucket[1]) or capacity, tonumber(bucket[2]) or now
        local from = now + paused
        if from > updated then
            tokens = math.min(capacity, tokens + (from - updated) * rate)
            updated = from
        end
        local wait = 0
        if tokens < 1 then wait = (1 - tokens) / rate end
        if wait > within - paused then return {-1, math.floor(paused * 1000000)} end
        tokens = tokens - 1
        redis.call('HSET', KEYS[1], 't', string.format('%.9f', tokens), 'u', string.format('%.6f', updated))
        local ttl = math.ceil(((capacity - tokens) / rate + (updated - now) + 1) * 1000)
        redis.call('PEXPIRE', KEYS[1], math.min(ttl, 2592000000))
        return {math.floor((paused + wait) * 1000000), math.floor(paused * 1000000)}
        """)

    /// KEYS: bucket. ARGV: rate, capacity. Gives back one token.
    static let returnToken = RedisScript(now + """

        local bucket = redis.call('HMGET', KEYS[1], 't', 'u')
        if not bucket[1] then return 0 end
        local rate, capacity = tonumber(ARGV[1]), tonumber(ARGV[2])
        local tokens, updated = tonumber(bucket[1]), tonumber(bucket[2])
        if now > updated then
            tokens = math.min(capacity, tokens + (now - updated) * rate)
            updated = now
        end
        tokens = math.min(capacity, tokens + 1)
        redis.call('HSET', KEYS[1], 't', string.format('%.9f', tokens), 'u', string.format('%.6f', updated))
        return 1
        """)

    /// KEYS: pause. ARGV: milliseconds. A longer pause already set stays.
    static let pause = RedisScript("""
        local ms = tonumber(ARGV[1])
        if redis.call('PTTL', KEYS[1]) < ms then redis.call('SET', KEYS[1], '1', 'PX', ms) end
        return 1
        """)

    /// KEYS: circuit. ARGV: open seconds, probe lease seconds.
    /// Returns {0} send, {1} probe, {2, since, until, reason} open, {3, since} probing.
    static let admit = RedisScript(now + """

        local circuit = redis.call('HMGET', KEYS[1], 'o', 'r', 'p', 'pe')
        local opened = tonumber(circuit[1])
        if not opened then return {0} end
        local duration, lease = tonumber(ARGV[1]), tonumber(ARGV[2])
        if now < opened + duration then
            return {2, circuit[1], string.format('%.6f', opened + duration), circuit[2] or ''}
        end
        local probeEnds = tonumber(circuit[4])
        if probeEnds and now < probeEnds then return {3, circuit[3]} end
        redis.call('HSET', KEYS[1], 'p', string.format('%.6f', now), 'pe', string.format('%.6f', now + lease))
        redis.call('EXPIRE', KEYS[1], math.ceil(lease + 3600))
        return {1}
        """)

    /// KEYS: circuit. ARGV: outcome (s, f, n), probe (1, 0), threshold, open seconds, reason.
    static let record = RedisScript(now + """

        local outcome, probe = ARGV[1], ARGV[2] == '1'
        local threshold, duration, reason = tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
        local opened = redis.call('HGET', KEYS[1], 'o')
        local function open(why)
            redis.call('HSET', KEYS[1], 'o', string.format('%.6f', now), 'r', why)
            redis.call('HDEL', KEYS[1], 'p', 'pe', 'f')
            redis.call('EXPIRE', KEYS[1], math.ceil(duration + 3600))
        end
        if outcome == 's' then
            if probe or not opened then redis.call('DEL', KEYS[1]) end
        elseif outcome == 'f' then
            if probe then
                open('its probe failed (' .. reason .. ')')
            elseif not opened then
                local failures = redis.call('HINCRBY', KEYS[1], 'f', 1)
                if failures >= threshold then
                    open(failures .. ' consecutive failures (the last: ' .. reason .. ')')
                else
                    redis.call('EXPIRE', KEYS[1], 3600)
                end
            end
        elseif probe then
            redis.call('HDEL', KEYS[1], 'p', 'pe')
        end
        return 1
        """)

    /// KEYS: the budget's key prefix (one hash per second under it). ARGV: window seconds.
    static let recordFirstAttempt = RedisScript(now + """

        local key = KEYS[1] .. ':' .. math.floor(now)
        redis.call('HINCRBY', key, 'f', 1)
        redis.call('EXPIRE', key, tonumber(ARGV[1]) + 2)
        return 1
        """)

    /// KEYS: the budget's key prefix. ARGV: window seconds, ratio, minimum per second.
    /// Returns {allowed (1, 0), retries, first attempts}.
    static let takeRetry = RedisScript(now + """

        local window, ratio, minimum = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
        local second = math.floor(now)
        local firsts, retries = 0, 0
        for s = second - window + 1, second do
            local counts = redis.call('HMGET', KEYS[1] .. ':' .. s, 'f', 'r')
            firsts = firsts + (tonumber(counts[1]) or 0)
            retries = retries + (tonumber(counts[2]) or 0)
        end
        if retries + 1 > ratio * firsts + minimum * window then return {0, retries, firsts} end
        local key = KEYS[1] .. ':' .. second
        redis.call('HINCRBY', key, 'r', 1)
        redis.call('EXPIRE', key, window + 2)
        return {1, retries, firsts}
        """)
}
