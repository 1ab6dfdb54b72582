using System.Text.Json;
using ConcurrencySandbox.Tests.Hosting;

namespace ConcurrencySandbox.Tests;

/// <summary>Every route against its parameter declarations in the Swagger document; one server, read only.</summary>
public sealed class SwaggerDocumentTests(SandboxServerFixture shared) : IClassFixture<SandboxServerFixture>
{
    public static TheoryData<string, string[]> Routes() => new()
    {
        { "/api/compute/sync", ["cycles"] },
        { "/api/compute/taskrun", ["cycles"] },
        { "/api/compute/compare", ["cycles", "repeat", "ciWidth", "budgetSeconds"] },
        { "/api/compute/sweep", ["from", "to", "factor", "repeat", "ciWidth", "budgetSeconds", "format"] },
        { "/api/spinwait/sync", ["iterations"] },
        { "/api/spinwait/taskrun", ["iterations"] },
        { "/api/spinwait/compare", ["iterations", "repeat", "ciWidth", "budgetSeconds"] },
        { "/api/spinwait/sweep", ["from", "to", "factor", "repeat", "ciWidth", "budgetSeconds", "format"] },
        { "/api/sleep/sync", ["milliseconds"] },
        { "/api/sleep/taskrun", ["milliseconds"] },
        { "/api/sleep/async", ["milliseconds"] },
        { "/api/sleep/compare", ["milliseconds", "repeat", "ciWidth", "budgetSeconds"] },
        { "/api/sleep/sweep", ["from", "to", "factor", "repeat", "ciWidth", "budgetSeconds", "format"] },
        { "/api/fanout", ["calls", "delayMs", "strategy", "jitterMs", "failRate", "hangRate", "timeoutMs"] },
        { "/api/contention/lock", ["holdMs"] },
        { "/api/contention/semaphore-async", ["holdMs"] },
        { "/api/threadpool", [] },
        { "/api/telemetry", [] },
        { "/api/telemetry/history", ["since"] },
        { "/healthz", [] },
    };

    [Theory]
    [MemberData(nameof(Routes))]
    public async Task EachRouteHasASummaryATagAndItsParametersWithTheirAllowedRanges(string route, string[] parameters)
    {
        using var document = JsonDocument.Parse(await shared.Client.GetStringAsync("/swagger/v1/swagger.json"));

        var operation = document.RootElement.GetProperty("paths").GetProperty(route).GetProperty("get");

        Assert.False(string.IsNullOrWhiteSpace(operation.GetProperty("summary").GetString()));
        Assert.NotEmpty(operation.GetProperty("tags").EnumerateArray());
        var documented = operation.TryGetProperty("parameters", out var list) ? list.EnumerateArray().ToList() : [];
        Assert.Equal(parameters, documented.Select(p => p.GetProperty("name").GetString()));
        foreach (var parameter in documented)
        {
            Assert.Contains("Allowed:", parameter.GetProperty("description").GetString(), StringComparison.Ordinal);
            var schema = parameter.GetProperty("schema");
            Assert.True(schema.TryGetProperty("maximum", out _) || schema.TryGetProperty("enum", out _), $"{route} {parameter}: no range");
        }
    }
}
