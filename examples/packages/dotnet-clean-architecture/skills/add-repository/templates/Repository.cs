using Microsoft.EntityFrameworkCore;
using {ServiceName}.Application.{EntityName}s;
using {ServiceName}.Domain;

namespace {ServiceName}.Infrastructure.Persistence;

internal sealed class {EntityName}Repository(AppDbContext db) : I{EntityName}Repository
{
// {{#if typed-id}}
    public Task<{EntityName}?> GetByIdAsync({EntityName}Id id, CancellationToken cancellationToken) =>
// {{/if}}
// {{#if guid}}
    public Task<{EntityName}?> GetByIdAsync(Guid id, CancellationToken cancellationToken) =>
// {{/if}}
        db.Set<{EntityName}>().FirstOrDefaultAsync(e => e.Id == id, cancellationToken);

    public async Task AddAsync({EntityName} entity, CancellationToken cancellationToken)
    {
        db.Add(entity);
        await db.SaveChangesAsync(cancellationToken);
    }
}
