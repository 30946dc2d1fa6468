using System.Text.Json;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace {ServiceName}.Infrastructure.Caching;

/// <summary>Settings of the {ServiceName} cache.</summary>
public sealed class CacheOptions
{
    /// <summary>How long an entry lives when the caller gives no TTL.</summary>
    public TimeSpan DefaultTtl { get; set; } = TimeSpan.FromMinutes({TtlMinutes});
}

/// <summary>Cache-aside access to the {ServiceName} cache.</summary>
public interface I{ServiceName}Cache
{
    Task<T> GetOrCreateAsync<T>(
        string key,
        Func<CancellationToken, Task<T>> factory,
        TimeSpan? ttl = null,
        CancellationToken cancellationToken = default);

    Task RemoveAsync(string key, CancellationToken cancellationToken = default);
}

public sealed class {ServiceName}CacheService : I{ServiceName}Cache
{
    private static readonly JsonSerializerOptions SerializerOptions = new(JsonSerializerDefaults.Web);

    private readonly IDistributedCache _cache;
    private readonly CacheOptions _options;
    private readonly ILogger<{ServiceName}CacheService> _logger;

    public {ServiceName}CacheService(
        IDistributedCache cache,
        IOptions<CacheOptions> options,
        ILogger<{ServiceName}CacheService> logger)
    {
        _cache = cache;
        _options = options.Value;
        _logger = logger;
    }

    public async Task<T> GetOrCreateAsync<T>(
        string key,
        Func<CancellationToken, Task<T>> factory,
        TimeSpan? ttl = null,
        CancellationToken cancellationToken = default)
    {
        var cached = await _cache.GetStringAsync(key, cancellationToken);
        if (cached is not null)
        {
            _logger.LogDebug("Cache hit for {CacheKey}", key);
            return JsonSerializer.Deserialize<T>(cached, SerializerOptions)!;
        }

        _logger.LogDebug("Cache miss for {CacheKey}", key);
        var value = await factory(cancellationToken);
        var entryOptions = new DistributedCacheEntryOptions
        {
            AbsoluteExpirationRelativeToNow = ttl ?? _options.DefaultTtl,
        };
        await _cache.SetStringAsync(key, JsonSerializer.Serialize(value, SerializerOptions), entryOptions, cancellationToken);
        return value;
    }

    public Task RemoveAsync(string key, CancellationToken cancellationToken = default) =>
        _cache.RemoveAsync(key, cancellationToken);
}
