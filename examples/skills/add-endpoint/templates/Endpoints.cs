using System.ComponentModel.DataAnnotations;
using Microsoft.AspNetCore.Http.HttpResults;
using {ServiceName}.Api.Contracts;
using {ServiceName}.Domain;

namespace {ServiceName}.Api.Endpoints;

// Program.cs: app.Map{EntityName}Endpoints();
public static class {EntityName}Endpoints
{
    public static IEndpointRouteBuilder Map{EntityName}Endpoints(this IEndpointRouteBuilder app)
    {
        var group = app.MapGroup("/api/{EntityName}").WithTags("{EntityName}");

        group.MapGet("/", List);
        group.MapGet("/{id:guid}", Get).WithName("Get{EntityName}");
        group.MapPost("/", Create);
        group.MapPut("/{id:guid}", Update);
        group.MapDelete("/{id:guid}", Delete);
        return app;
    }

    private static async Task<Ok<List<{EntityName}Response>>> List(I{EntityName}Repository repository, CancellationToken ct) =>
        TypedResults.Ok((await repository.ListAsync(ct)).Select({EntityName}Response.From).ToList());

    private static async Task<Results<Ok<{EntityName}Response>, NotFound>> Get(Guid id, I{EntityName}Repository repository, CancellationToken ct) =>
        await repository.GetByIdAsync(id, ct) is { } entity
            ? TypedResults.Ok({EntityName}Response.From(entity))
            : TypedResults.NotFound();

    private static async Task<Results<CreatedAtRoute<{EntityName}Response>, ValidationProblem>> Create(
        {EntityName}Request request, I{EntityName}Repository repository, CancellationToken ct)
    {
        if (Validate(request) is { } problem)
        {
            return problem;
        }

        var entity = new {EntityName} { Id = Guid.NewGuid(), Name = request.Name, CreatedAt = DateTimeOffset.UtcNow };
        await repository.AddAsync(entity, ct);
        return TypedResults.CreatedAtRoute({EntityName}Response.From(entity), "Get{EntityName}", new { id = entity.Id });
    }

    private static async Task<Results<NoContent, NotFound, ValidationProblem>> Update(
        Guid id, {EntityName}Request request, I{EntityName}Repository repository, CancellationToken ct)
    {
        if (Validate(request) is { } problem)
        {
            return problem;
        }

        if (await repository.GetByIdAsync(id, ct) is not { } entity)
        {
            return TypedResults.NotFound();
        }

        entity.Name = request.Name;
        await repository.UpdateAsync(entity, ct);
        return TypedResults.NoContent();
    }

    private static async Task<Results<NoContent, NotFound>> Delete(Guid id, I{EntityName}Repository repository, CancellationToken ct)
    {
        if (await repository.GetByIdAsync(id, ct) is not { } entity)
        {
            return TypedResults.NotFound();
        }

        await repository.DeleteAsync(entity, ct);
        return TypedResults.NoContent();
    }

    private static ValidationProblem? Validate({EntityName}Request request)
    {
        var results = new List<ValidationResult>();
        if (Validator.TryValidateObject(request, new ValidationContext(request), results, validateAllProperties: true))
        {
            return null;
        }

        var errors = results
            .SelectMany(r => r.MemberNames.Select(member => (member, message: r.ErrorMessage ?? "Invalid value.")))
            .GroupBy(e => e.member, e => e.message)
            .ToDictionary(g => g.Key, g => g.ToArray());
        return TypedResults.ValidationProblem(errors);
    }
}
