using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;

namespace {ServiceName}.Infrastructure.Caching;

public static class CachingServiceCollectionExtensions
{
    public static IServiceCollection Add{ServiceName}Caching(
        this IServiceCollection services,
        IConfiguration configuration)
    {
        // {{#if redis}}
        services.AddStackExchangeRedisCache(options =>
        {
            options.Configuration = configuration.GetConnectionString("Redis")
                ?? throw new InvalidOperationException("ConnectionStrings:Redis is not configured.");
            options.InstanceName = "{ServiceName}:";
        });
        // {{/if}}
        // {{#if memory}}
        services.AddDistributedMemoryCache();
        // {{/if}}

        services.Configure<CacheOptions>(options => options.DefaultTtl = TimeSpan.FromMinutes({TtlMinutes}));
        services.AddSingleton<I{ServiceName}Cache, {ServiceName}CacheService>();
        return services;
    }
}
