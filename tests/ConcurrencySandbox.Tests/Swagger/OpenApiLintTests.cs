using ConcurrencySandbox.Tests.Hosting;

namespace ConcurrencySandbox.Tests.Swagger;

/// <summary>The served OpenAPI document against two independent linters' rule sets: no errors allowed.</summary>
[Trait("Category", "Slow")]
public sealed class OpenApiLintTests : IAsyncLifetime
{
    private static readonly TimeSpan LintTimeout = TimeSpan.FromMinutes(2);
    private readonly string _document = Path.Combine(Path.GetTempPath(), $"concurrencysandbox-openapi-{Guid.NewGuid():N}.json");

    public async Task InitializeAsync()
    {
        await using var server = await SandboxServer.StartAsync();
        await File.WriteAllTextAsync(_document, await server.Client.GetStringAsync("/swagger/v1/swagger.json"));
    }

    public Task DisposeAsync()
    {
        File.Delete(_document);
        return Task.CompletedTask;
    }

    [FactWhenOpenApiLintersInstall]
    public void RedoclyRecommendedRulesFindNoErrors()
    {
        var (exitCode, output) = OpenApiLinters.Run(OpenApiLinters.Bin("redocly"), LintTimeout, "lint", "--extends=recommended", "--format=stylish", _document);

        Assert.True(exitCode == 0, output);
    }

    [FactWhenOpenApiLintersInstall]
    public void SpectralOasRulesFindNoErrors()
    {
        var ruleset = Path.Combine(OpenApiLinters.CacheFolder, ".spectral.yaml");
        File.WriteAllText(ruleset, "extends: [\"spectral:oas\"]\n");

        var (exitCode, output) = OpenApiLinters.Run(OpenApiLinters.Bin("spectral"), LintTimeout, "lint", "--ruleset", ruleset, "--fail-severity=error", _document);

        Assert.True(exitCode == 0, output);
    }
}
