using {ServiceName}.Domain;

namespace {ServiceName}.Application.{EntityName}s;

public interface I{EntityName}Repository
{
// {{#if typed-id}}
    Task<{EntityName}?> GetByIdAsync({EntityName}Id id, CancellationToken cancellationToken);
// {{/if}}
// {{#if guid}}
    Task<{EntityName}?> GetByIdAsync(Guid id, CancellationToken cancellationToken);
// {{/if}}
    Task AddAsync({EntityName} entity, CancellationToken cancellationToken);
}
