using Microsoft.OpenApi;

namespace ConcurrencySandbox.Api.Swagger;

/// <summary>
/// A Swagger tag, declared by the feature whose endpoints carry it. <see cref="TagsDocumentFilter"/> lists every tag
/// an endpoint carries, with its description, by <paramref name="Order"/>.
/// </summary>
/// <param name="Order">
/// The tag's place in the document: start here (Health, 0), then the seeds from 004 (the basics, 10-19) down to
/// 000 (the pool's settings, 50-59), one band of ten per seed, then the runtime's own counters (Telemetry, 60).
/// </param>
public sealed record ApiTag(string Name, string Description, int Order)
{
    public OpenApiTag ToOpenApi() => new() { Name = Name, Description = Description };
}

public static class ApiTagExtensions
{
    /// <summary>Tags the endpoints with <paramref name="tag"/>'s name and carries the tag itself for the document's list.</summary>
    public static TBuilder WithApiTag<TBuilder>(this TBuilder builder, ApiTag tag)
        where TBuilder : IEndpointConventionBuilder =>
        builder.WithTags(tag.Name).WithMetadata(tag);
}
