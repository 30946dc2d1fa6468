using System.ComponentModel.DataAnnotations;
using {ServiceName}.Domain;

namespace {ServiceName}.Api.Contracts;

/// <summary>The {EntityName} resource as clients see it.</summary>
public sealed record {EntityName}Response(Guid Id, string Name, DateTimeOffset CreatedAt)
{
    public static {EntityName}Response From({EntityName} entity) =>
        new(entity.Id, entity.Name, entity.CreatedAt);
}

/// <summary>The body of a create or update request.</summary>
public sealed class {EntityName}Request
{
    [Required]
    [StringLength(200, MinimumLength = 1)]
    public string Name { get; set; } = string.Empty;
}
