using ConcurrencySandbox.Api.Contention;
using ConcurrencySandbox.Contracts.Contention;
using ConcurrencySandbox.Contracts.Control;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.Experiments.Contention;
using ConcurrencySandbox.Tests.Hosting;
using ConcurrencySandbox.Tests.Metrics;

namespace ConcurrencySandbox.Tests.Contention;

/// <summary>
/// The contention slice's own instrument, declared in its folder only (Experiments/Contention/ContentionInstruments),
/// reaches the telemetry snapshot and /metrics with no line naming it outside the slice. Process-wide counts: runs alone.
/// </summary>
[Collection(ProcessWideCollection.Name)]
public sealed class ContentionInstrumentTests
{
    [Fact]
    public async Task ARequestsEntryIntoTheCriticalSectionShowsInTheTelemetryAndOnTheControlPortsMetrics()
    {
        await using var server = await SandboxServer.StartAsync();
        using var control = new HttpClient { BaseAddress = server.ControlAddress };
        var telemetryBefore = await server.Client.GetOkAsync<RuntimeSnapshot>("/api/telemetry");
        var metricsBefore = PrometheusExpositionTests.Samples(await control.GetStringAsync(ControlRoutes.Metrics));

        await server.Client.GetOkAsync<ContentionAnswer>($"/api/contention/{ContentionVariants.MonitorLock}?holdMs=1");
        var telemetryAfter = await server.Client.GetOkAsync<RuntimeSnapshot>("/api/telemetry");
        var metricsAfter = PrometheusExpositionTests.Samples(await control.GetStringAsync(ControlRoutes.Metrics));

        Assert.Equal(telemetryBefore.Sandbox["sandbox.contention.entries"] + 1, telemetryAfter.Sandbox["sandbox.contention.entries"]);
        Assert.Equal(metricsBefore["sandbox_contention_entries_total"] + 1, metricsAfter["sandbox_contention_entries_total"]);
    }
}
