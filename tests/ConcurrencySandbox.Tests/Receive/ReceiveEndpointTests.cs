using System.Text.Json;
using ConcurrencySandbox.Contracts.Receive;
using ConcurrencySandbox.Contracts.Seeds;
using ConcurrencySandbox.Experiments.Receive;
using ConcurrencySandbox.Experiments.Telemetry;
using ConcurrencySandbox.Experiments.Work;
using ConcurrencySandbox.Tests.Hosting;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Tests.Receive;

/// <summary>Read-only tests share one server; those that need other settings or watch their own request start their own.</summary>
[Collection(ReceiveRunsCollection.Name)]
public sealed class ReceiveEndpointTests(SandboxServerFixture shared) : IClassFixture<SandboxServerFixture>
{
    [Fact]
    public async Task ARunReportsWhatItReceivedAndWhichCountersItRead()
    {
        var result = await shared.Client.GetOkAsync<ReceiveResult>("/api/receive/per-call?messages=500&messageBytes=256&timeoutMs=500");

        Assert.Equal("per-call", result.Variant);
        Assert.Equal(new ReceivePlan(500, 256, 500, 0), result.Plan);
        Assert.Equal(500, result.ReceivedMessages);
        Assert.Equal(0, result.OutOfOrderMessages);
        Assert.True(result.AllocatedBytesPerReceive >= 256);
        Assert.Contains("receiving thread", result.AllocationCounter, StringComparison.Ordinal);
    }

    [Fact]
    public async Task CompareRunsEveryVariantAndPrintsTheSeedBesideToday()
    {
        var report = await shared.Client.GetOkAsync<ReceiveComparisonReport>("/api/receive/compare?messages=300&messageBytes=128&repeat=2");

        Assert.Equal(ReceiveVariant.Names, report.Variants.Select(v => v.Variant));
        Assert.All(report.Variants, v => Assert.Equal(0, v.OutOfOrderMessages));
        Assert.Equal(4.87, report.Seed.CpuRatio, 2);
        Assert.Equal(Seed002Figures.PerCallCpuTicks, report.Seed.PerCallCpuTicks);
        Assert.True(report.Variants[0].AllocatedBytesPerReceive >= 128);
        Assert.Equal(report.Variants[0].CpuNsPerReceive / report.Variants[1].CpuNsPerReceive, report.CpuRatio, 6);
        Assert.Contains("the seed's 4.9x", report.Verdict, StringComparison.Ordinal);
        Assert.Contains("intervalMs=1", report.Verdict, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("/api/receive/preallocated?messages=0", "messages")]
    [InlineData("/api/receive/preallocated?messages=1000001", "messages")]
    [InlineData("/api/receive/preallocated?messages=many", "messages")]
    [InlineData("/api/receive/per-call?messageBytes=7", "messageBytes")]
    [InlineData("/api/receive/per-call?messageBytes=1048577", "messageBytes")]
    [InlineData("/api/receive/per-call?messageBytes=1.5", "messageBytes")]
    [InlineData("/api/receive/spinning?timeoutMs=0", "timeoutMs")]
    [InlineData("/api/receive/spinning?timeoutMs=60001", "timeoutMs")]
    [InlineData("/api/receive/spinning?timeoutMs=soon", "timeoutMs")]
    [InlineData("/api/receive/allocating?intervalMs=-1", "intervalMs")]
    [InlineData("/api/receive/allocating?intervalMs=1001", "intervalMs")]
    [InlineData("/api/receive/allocating?intervalMs=NaN", "intervalMs")]
    [InlineData("/api/receive/allocating?messages=1000&intervalMs=1000", "intervalMs")]
    [InlineData("/api/receive/compare?repeat=0", "repeat")]
    [InlineData("/api/receive/compare?repeat=51", "repeat")]
    [InlineData("/api/receive/compare?repeat=x", "repeat")]
    [InlineData("/api/receive/compare?messages=1000000&repeat=6", "messages")]
    [InlineData("/api/receive/compare?messages=1000&intervalMs=100&repeat=1", "intervalMs")]
    [InlineData("/api/receive/zmq", "variant")]
    [InlineData("/api/receive/PerCall", "variant")]
    public async Task BadInputGetsProblemDetailsNamingTheParameter(string url, string parameter)
    {
        using var response = await shared.Client.GetAsync(url);

        var detail = await ProblemAssert.IsBadRequestNamingAsync(response, parameter);
        Assert.Matches("from|limit|one of per-call, preallocated, allocating, spinning", detail);
    }

    [Fact]
    public async Task CapsComeFromTheLimitsSection()
    {
        await using var server = await SandboxServer.StartAsync("Limits:MaxReceiveMessages=100", "Limits:MaxReceiveMessageBytes=64");

        using var allowed = await server.Client.GetAsync("/api/receive/preallocated?messages=100&messageBytes=64");
        using var tooMany = await server.Client.GetAsync("/api/receive/preallocated?messages=101");
        using var tooBig = await server.Client.GetAsync("/api/receive/preallocated?messages=10&messageBytes=65");

        Assert.True(allowed.IsSuccessStatusCode);
        Assert.Contains("from 1 to 100;", await ProblemAssert.IsBadRequestNamingAsync(tooMany, "messages"), StringComparison.Ordinal);
        Assert.Contains("from 8 to 64;", await ProblemAssert.IsBadRequestNamingAsync(tooBig, "messageBytes"), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("MaxReceiveMessages")]
    [InlineData("MaxReceiveMessageBytes")]
    [InlineData("MaxReceiveTimeoutMs")]
    [InlineData("MaxReceiveTotalMessages")]
    [InlineData("MaxReceivePacedMilliseconds")]
    public async Task AnInvalidReceiveCapStopsStartUpNamingTheSetting(string setting)
    {
        var failure = await Assert.ThrowsAsync<OptionsValidationException>(() => SandboxServer.StartAsync($"Limits:{setting}=0"));

        Assert.Contains($"Limits__{setting}", failure.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("/api/receive/preallocated?messages=100&intervalMs=1000&timeoutMs=60000")]
    [InlineData("/api/receive/spinning?messages=100&intervalMs=1000&timeoutMs=60000")]
    [InlineData("/api/receive/compare?messages=100&intervalMs=100&timeoutMs=60000&repeat=1")]
    public async Task AnAbandonedRequestStopsItsReceiveLoop(string url)
    {
        var endings = new RequestEndings();
        await using var server = await SandboxServer.StartAsync(services => services.AddSingleton<IStartupFilter>(endings));
        using var meter = new SandboxMeterReader();
        var before = meter.Read();
        using var client = new CancellationTokenSource();

        var request = server.Client.GetAsync(url, client.Token);
        await Eventually.TrueAsync(() => meter.Read()["sandbox.receive.runs.active"] > before["sandbox.receive.runs.active"], "the receive loop to start");
        await client.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => request);

        // This request's own handler returns only once its receive loop has stopped; 499 (not 200 after the 100 paced
        // messages) says the loop stopped because the client went away. No clock: a loop that ignored it would end in 200.
        Assert.Equal(StatusCodes.Status499ClientClosedRequest, await endings.StatusCodeOfAsync(url));
        var after = meter.Read();
        Assert.Equal((before["sandbox.receive.runs.active"], before["sandbox.receive.runs.cancelled"] + 1), (after["sandbox.receive.runs.active"], after["sandbox.receive.runs.cancelled"]));
    }

    [Fact]
    public async Task SwaggerDocumentsEveryReceiveRouteUnderItsTagWithRanges()
    {
        using var document = JsonDocument.Parse(await shared.Client.GetStringAsync("/swagger/v1/swagger.json"));
        var paths = document.RootElement.GetProperty("paths");

        foreach (var variant in ReceiveVariant.Names)
        {
            AssertDocumented(paths, $"/api/receive/{variant}", ["messages", "messageBytes", "timeoutMs", "intervalMs"]);
        }

        AssertDocumented(paths, "/api/receive/compare", ["messages", "messageBytes", "timeoutMs", "intervalMs", "repeat"]);
        Assert.False(paths.TryGetProperty("/api/receive/{variant}", out _), "the unknown-variant fallback should stay out of the document");
    }

    private static void AssertDocumented(JsonElement paths, string route, string[] parameters)
    {
        var operation = paths.GetProperty(route).GetProperty("get");
        Assert.Equal(["Receive"], operation.GetProperty("tags").EnumerateArray().Select(t => t.GetString()));
        Assert.Contains("Seed 002", operation.GetProperty("summary").GetString(), StringComparison.Ordinal);
        var documented = operation.GetProperty("parameters").EnumerateArray().ToList();
        Assert.Equal(parameters, documented.Select(p => p.GetProperty("name").GetString()));
        Assert.All(documented, p => Assert.True(p.GetProperty("schema").TryGetProperty("maximum", out _), $"{route}: {p} has no range"));
    }
}
