using System.Text.Json;
using ConcurrencySandbox.Api.Swagger;
using ConcurrencySandbox.Api.ThreadPools;
using ConcurrencySandbox.Tests.Hosting;
using Microsoft.AspNetCore.Http;

namespace ConcurrencySandbox.Tests.Swagger;

/// <summary>What the linters do not check: tags as declared, the PUT body's ranges, the sweep's JSON answer, the flags, deep links. One server, read only.</summary>
public sealed class OpenApiDocumentTests(SandboxServerFixture shared) : IClassFixture<SandboxServerFixture>, IAsyncLifetime
{
    private JsonDocument? _document;

    private JsonElement Root => _document!.RootElement;

    public async Task InitializeAsync() => _document = JsonDocument.Parse(await shared.Client.GetStringAsync("/swagger/v1/swagger.json"));

    public Task DisposeAsync()
    {
        _document?.Dispose();
        return Task.CompletedTask;
    }

    [Fact]
    public void EveryUsedTagIsDescribedInTheDeclaredOrder()
    {
        var listed = Root.GetProperty("tags").EnumerateArray().Select(t => (Name: t.GetProperty("name").GetString(), Description: t.GetProperty("description").GetString())).ToList();
        var used = Root.GetProperty("paths").EnumerateObject()
            .SelectMany(path => path.Value.EnumerateObject())
            .SelectMany(operation => operation.Value.GetProperty("tags").EnumerateArray().Select(t => t.GetString()))
            .ToHashSet();

        var declared = SwaggerDocumentTests.DocumentedRoutes(shared.Server.Services)
            .Select(route => route.Endpoint.Metadata.GetMetadata<ApiTag>()).OfType<ApiTag>().Distinct().OrderBy(tag => tag.Order).Select(tag => tag.Name).ToList();
        Assert.Contains("Receive", declared);
        Assert.Equal(declared, listed.Select(t => t.Name));
        Assert.Subset(listed.Select(t => t.Name).ToHashSet(), used);
        Assert.All(listed, tag => Assert.False(string.IsNullOrWhiteSpace(tag.Description)));
        Assert.Contains("Start here", Root.GetProperty("info").GetProperty("description").GetString(), StringComparison.Ordinal);
    }

    [Fact]
    public void ThePutBodyDeclaresEachSettingsRangeAndNoOtherProperty()
    {
        var reference = Root.GetProperty("paths").GetProperty("/api/threadpool").GetProperty("put").GetProperty("requestBody")
            .GetProperty("content").GetProperty("application/json").GetProperty("schema").GetProperty("$ref").GetString()!;
        var schema = Root.GetProperty("components").GetProperty("schemas").GetProperty(reference.Split('/')[^1]);

        Assert.False(schema.GetProperty("additionalProperties").GetBoolean());
        foreach (var setting in ThreadPoolSettings.All)
        {
            var property = schema.GetProperty("properties").GetProperty(setting.Name);
            Assert.Equal(setting.Min, property.GetProperty("minimum").GetInt64());
            Assert.Equal(setting.Max, property.GetProperty("maximum").GetInt64());
        }
    }

    [Fact]
    public void TheSweepDocumentsItsJsonAnswerBesideTheTextOnes()
    {
        var content = Root.GetProperty("paths").GetProperty("/api/compute/sweep").GetProperty("get").GetProperty("responses").GetProperty("200").GetProperty("content");

        Assert.EndsWith("/SweepReport", content.GetProperty("application/json").GetProperty("schema").GetProperty("$ref").GetString(), StringComparison.Ordinal);
        Assert.True(content.TryGetProperty("text/csv", out _));
        Assert.True(content.TryGetProperty("text/markdown", out _));
    }

    [Theory]
    [InlineData("SweepReport")]
    [InlineData("CompareResponse")]
    public void TheSweepAndCompareAnswersDocumentTheirFlags(string answer)
    {
        var schemas = Root.GetProperty("components").GetProperty("schemas");
        var flags = schemas.GetProperty(answer).GetProperty("properties").GetProperty("flags");
        var flag = schemas.GetProperty(flags.GetProperty("items").GetProperty("$ref").GetString()!.Split('/')[^1]);
        var kind = flag.GetProperty("properties").GetProperty("kind");
        var kindSchema = kind.TryGetProperty("$ref", out var reference) ? schemas.GetProperty(reference.GetString()!.Split('/')[^1]) : kind;

        Assert.Equal("array", flags.GetProperty("type").GetString());
        Assert.Equal(["figure", "kind", "reason", "value"], flag.GetProperty("properties").EnumerateObject().Select(p => p.Name).Intersect(["figure", "value", "kind", "reason"]).Order());
        Assert.Equal(["impossible", "inconclusive", "busy", "throttled"], kindSchema.GetProperty("enum").EnumerateArray().Select(e => e.GetString()));
    }

    [Fact]
    public async Task SwaggerUiHasDeepLinksOn()
    {
        var initializer = await shared.Client.GetStringAsync("/swagger/index.js");

        Assert.Contains("\"deepLinking\":true", initializer.Replace(" ", string.Empty, StringComparison.Ordinal), StringComparison.Ordinal);
    }
}
