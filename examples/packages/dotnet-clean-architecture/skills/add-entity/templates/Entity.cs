namespace {ServiceName}.Domain;

// {{#if typed-id}}
public readonly record struct {EntityName}Id(Guid Value)
{
    public static {EntityName}Id New() => new(Guid.NewGuid());
}
// {{/if}}

public class {EntityName}
{
// {{#if typed-id}}
    public {EntityName}Id Id { get; private set; } = {EntityName}Id.New();
// {{/if}}
// {{#if guid}}
    public Guid Id { get; private set; } = Guid.NewGuid();
// {{/if}}
    public string Name { get; private set; } = string.Empty;
}
