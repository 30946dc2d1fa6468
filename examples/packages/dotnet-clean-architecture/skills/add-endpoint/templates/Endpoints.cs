using {ServiceName}.Application.{EntityName}s;

namespace {ServiceName}.Api.Endpoints;

public static class {EntityName}Endpoints
{
    public static IEndpointRouteBuilder Map{EntityName}Endpoints(this IEndpointRouteBuilder app)
    {
        app.MapGet("/api/{EntityName}s/{id:guid}", async (Guid id, I{EntityName}Repository repository, CancellationToken ct) =>
            await repository.GetByIdAsync(id, ct) is { } found ? Results.Ok(found) : Results.NotFound());
        return app;
    }
}
