using System.CommandLine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Matrix;
using ConcurrencySandbox.Platform.Statistics;

namespace ConcurrencySandbox.LoadTests.Cli;

/// <summary>
/// <c>limits</c>: at each core count, does a CFS quota (<c>--cpus N</c>) cost a request more than a cpuset of the same cores
/// (<c>--cpuset-cpus</c>)? Prints one "ok: quota vs cpuset ...", "inconclusive: ..." or "skipped: ..." line per workload and core count.
/// </summary>
internal static class LimitsCommand
{
    public static Command Create(TextWriter output, TextWriter error)
    {
        var cores = new Option<string>("--cores") { Description = "Comma-separated core counts; a count above the host's CPUs is skipped with a line.", DefaultValueFactory = _ => "1,2" };
        var rounds = new Option<int>("--rounds") { Description = $"Paired rounds per workload and core count ({LimitsOptions.MinRounds} to {LimitsOptions.MaxRounds}); each times the request on both containers, alternating which goes first.", DefaultValueFactory = _ => LimitsOptions.DefaultRounds };
        var engine = new Option<string>("--engine") { Description = "The container engine: docker or podman.", DefaultValueFactory = _ => "docker" };
        var image = new Option<string>("--image") { Description = "The API image to run.", DefaultValueFactory = _ => MatrixOptions.DefaultImage };
        var cycles = new Option<long>("--cycles") { Description = "The single-threaded request's cycles (compute sync).", DefaultValueFactory = _ => LimitsOptions.DefaultCycles };
        var burst = new Option<int>("--burst") { Description = "Concurrent fan-out requests in one burst (1 to 256).", DefaultValueFactory = _ => LimitsOptions.DefaultBurstRequests };
        var throttleCycles = new Option<long>("--throttle-cycles") { Description = "Cycles of each compute sync request in the throttled burst (one request per host CPU, at once; measured only at core counts below the host's CPUs).", DefaultValueFactory = _ => LimitsOptions.DefaultThrottleCycles };
        var ciWidth = new Option<double>("--ci-width") { Description = $"A ratio whose 95 % CI holds 1 counts as no difference only within +-this percent ({MeasurementPolicy.MinTargetHalfWidthPercent} to {MeasurementPolicy.MaxTargetHalfWidthPercent}); wider is inconclusive.", DefaultValueFactory = _ => QuotaVsCpuset.DefaultTargetHalfWidthPercent };
        var command = new Command("limits", "Quota vs cpuset: the API image at --cpus N and at --cpuset-cpus 0-(N-1) side by side, a single-threaded request, a fan-out burst and (below the host's CPUs) a throttled compute burst with probes of the control plane timed on both in alternating rounds, with the ratio's 95 % CI and each cgroup's CFS counters.")
        {
            cores, rounds, engine, image, cycles, burst, throttleCycles, ciWidth,
        };
        command.SetAction(async (parse, cancellationToken) =>
        {
            try
            {
                var values = new OptionValues(parse);
                var engineName = values.Get(engine);
                if (engineName is not ("docker" or "podman"))
                {
                    throw new UsageException($"--engine must be docker or podman, got '{engineName}'");
                }
                var options = new LimitsOptions(CommandLine.CoreCounts(values, cores), values.InRange(rounds, LimitsOptions.MinRounds, LimitsOptions.MaxRounds), engineName,
                    values.Get(image), values.Positive(cycles), values.InRange(burst, 1, 256), LimitsOptions.DefaultBurstCalls,
                    values.InRange(ciWidth, MeasurementPolicy.MinTargetHalfWidthPercent, MeasurementPolicy.MaxTargetHalfWidthPercent), values.Positive(throttleCycles));
                await QuotaVsCpusetRun.RunAsync(options, output, cancellationToken);
                return CommandLine.ExitOk;
            }
            catch (UsageException e)
            {
                await error.WriteLineAsync($"error: {e.Message}");
                return CommandLine.ExitUsage;
            }
            catch (HttpRequestException e)
            {
                await error.WriteLineAsync($"error: a timed request failed: {e.Message}");
                return CommandLine.ExitThresholdFailed;
            }
        });
        return command;
    }
}
