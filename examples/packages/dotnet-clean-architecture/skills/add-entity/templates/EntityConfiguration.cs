using Microsoft.EntityFrameworkCore;
using Microsoft.EntityFrameworkCore.Metadata.Builders;
using {ServiceName}.Domain;

namespace {ServiceName}.Infrastructure.Persistence;

public sealed class {EntityName}Configuration : IEntityTypeConfiguration<{EntityName}>
{
    public void Configure(EntityTypeBuilder<{EntityName}> builder)
    {
        builder.HasKey(e => e.Id);
// {{#if typed-id}}
        builder.Property(e => e.Id).HasConversion(id => id.Value, value => new {EntityName}Id(value));
// {{/if}}
        builder.Property(e => e.Name).HasMaxLength(200).IsRequired();
    }
}
