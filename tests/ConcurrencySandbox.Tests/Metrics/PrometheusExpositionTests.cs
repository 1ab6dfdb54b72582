using System.Diagnostics.Metrics;
using System.Globalization;
using ConcurrencySandbox.Api.Metrics;
using ConcurrencySandbox.Contracts.Control;
using ConcurrencySandbox.Tests.Hosting;

namespace ConcurrencySandbox.Tests.Metrics;

/// <summary>GET /metrics on the control port: the Prometheus text format, the runtime's and the sandbox's instruments under OpenTelemetry's Prometheus names.</summary>
public sealed class PrometheusExpositionTests(SandboxServerFixture shared) : IClassFixture<SandboxServerFixture>
{
    // OpenTelemetry's names for these end in _count; promtool's lint (not its parser) prefers that suffix for histograms.
    private const string CountSuffixLint = "non-histogram and non-summary metrics should not have \"_count\" suffix";

    [FactWhenPromtoolInstalled]
    public async Task PromtoolParsesTheExpositionWithNoProblemButOpenTelemetrysCountSuffix()
    {
        var exposition = await ScrapeAsync();

        var (exitCode, output) = Promtool.CheckMetrics(exposition);

        var problems = output.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        Assert.True(exitCode is 0 or 3, $"promtool exit code {exitCode}: {output}"); // 3: lint problems only
        Assert.All(problems, problem => Assert.EndsWith(CountSuffixLint, problem, StringComparison.Ordinal));
    }

    [Fact]
    public async Task TheRuntimesAndTheSandboxsInstrumentsAreThereUnderOpenTelemetrysPrometheusNames()
    {
        using var control = new HttpClient { BaseAddress = shared.Server.ControlAddress };
        using var response = await control.GetAsync(ControlRoutes.Metrics);
        var samples = Samples(await response.Content.ReadAsStringAsync());

        Assert.Equal("text/plain", response.Content.Headers.ContentType?.MediaType);
        Assert.Contains(response.Content.Headers.ContentType!.Parameters, p => p.Name == "version" && p.Value == "0.0.4");
        Assert.Equal(Environment.ProcessorCount, samples["dotnet_process_cpu_count"]);
        Assert.True(samples.Keys.Any(name => name.StartsWith("dotnet_thread_pool_thread_count", StringComparison.Ordinal)), "the pool's thread count");
        Assert.True(samples.Keys.Any(name => name.StartsWith("dotnet_thread_pool_queue_length", StringComparison.Ordinal)), "the pool's queue length");
        Assert.True(samples["dotnet_gc_heap_total_allocated_bytes_total"] > 0, "a running app has allocated");
        Assert.Contains("dotnet_process_cpu_time_seconds_total{cpu_mode=\"user\"}", samples.Keys);
        Assert.Contains("sandbox_work_units_active", samples.Keys);
        Assert.Contains("sandbox_work_units_cancelled_total", samples.Keys);
    }

    [Theory]
    [InlineData("test.wait.time", "s", true, "test_wait_time_seconds_total")]
    [InlineData("test.heap.size", "By", false, "test_heap_size_bytes")]
    [InlineData("test.queue.length", "{item}", false, "test_queue_length")]
    [InlineData("test.utilization", "1", false, "test_utilization_ratio")]
    [InlineData("test.total_allocated", "By", true, "test_total_allocated_bytes_total")]
    [InlineData("test.wait_seconds", "s", false, "test_wait_seconds")]
    public void AnInstrumentIsNamedAsOpenTelemetrysPrometheusExporterNamesIt(string name, string unit, bool counter, string expected)
    {
        using var meter = new Meter("ConcurrencySandbox.Tests.Naming");
        Instrument instrument = counter ? meter.CreateObservableCounter(name, () => 1L, unit) : meter.CreateObservableUpDownCounter(name, () => 1L, unit);

        Assert.Equal(expected, PrometheusExposition.MetricName(instrument));
    }

    [Fact]
    public async Task TheControlPortRefusesOtherMethodsOnMetrics()
    {
        using var control = new HttpClient { BaseAddress = shared.Server.ControlAddress };

        using var response = await control.PostAsync(ControlRoutes.Metrics, null);

        Assert.Equal(System.Net.HttpStatusCode.MethodNotAllowed, response.StatusCode);
    }

    /// <summary>Each sample line's name with its labels, and its value.</summary>
    internal static Dictionary<string, double> Samples(string exposition) =>
        exposition.Split('\n', StringSplitOptions.RemoveEmptyEntries)
            .Where(line => !line.StartsWith('#'))
            .Select(line => line.Split(' '))
            .ToDictionary(parts => parts[0], parts => double.Parse(parts[1], CultureInfo.InvariantCulture));

    private async Task<string> ScrapeAsync()
    {
        using var control = new HttpClient { BaseAddress = shared.Server.ControlAddress };
        return await control.GetStringAsync(ControlRoutes.Metrics);
    }
}
