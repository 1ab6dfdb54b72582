using System.CommandLine;
using System.Net;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Hosting;
using ConcurrencySandbox.LoadTests.Reports;
using ConcurrencySandbox.LoadTests.Running;

namespace ConcurrencySandbox.LoadTests.Cli;

/// <summary>
/// <c>run --url http://127.0.0.1:PORT/path [--pid N | --process-name NAME]</c>: the same load profiles against any HTTP
/// endpoint on this machine, the runtime observer attached to its process (the one given, else the one listening on the
/// URL's port), and the same report with the diagnosis. Only loopback addresses are loaded.
/// </summary>
public static class UrlCommand
{
    private static readonly TimeSpan ProbeTimeout = TimeSpan.FromSeconds(10);

    public static Command Create(TextWriter output, TextWriter error)
    {
        var url = new Option<string>("--url") { Description = "The endpoint to load: an absolute http(s) URL on a loopback address (127.0.0.0/8, ::1, localhost).", Required = true };
        var pid = new Option<int?>("--pid") { Description = "The serving .NET process, for the runtime observer (default: the process listening on the URL's port, found through /proc on Linux)." };
        var processName = new Option<string?>("--process-name") { Description = "The serving .NET process by name (its executable or main assembly), when exactly one matches." };
        var outFolder = new Option<string?>("--out") { Description = "Report folder (default: reports/<yyyyMMdd-HHmmss>-url/)." };
        var command = new Command("run", "Load any HTTP endpoint on this machine with a load profile, observe its .NET process from outside, and write the report with the diagnosis.")
        {
            url, pid, processName, outFolder,
        };
        foreach (var option in CommandLine.LoadSymbols)
        {
            command.Options.Add(option);
        }
        command.SetAction(async (parse, cancellationToken) =>
        {
            try
            {
                var target = LoopbackUrl(parse.GetValue(url)!);
                var named = ProcessOf(parse.GetValue(pid), parse.GetValue(processName));
                var load = CommandLine.LoadOf(parse);
                await ProbeAsync(target, cancellationToken);
                // Without --pid or --process-name, the process listening on the URL's port, when this runner can observe it.
                var (processId, notObserved) = named is { } given ? (given, null) : ObserverTarget.FindByPort(target.Port);
                var baseAddress = new Uri(target.GetLeftPart(UriPartial.Authority) + "/");
                var experiment = new UrlTarget(target.PathAndQuery);
                await output.WriteLineAsync(processId is { } id
                    ? $"observing pid {id}{(named is null ? $" (listening on port {target.Port})" : "")}"
                    : $"note: the runtime is not observed (load and latency only): {notObserved}");
                var servers = new TargetApiServers(baseAddress, isSandboxApi: false) { ProcessId = processId, NotObservedBecause = notObserved };
                var report = await ExperimentRunner.RunAsync(experiment, load, servers, [], output, cancellationToken);
                var folder = parse.GetValue(outFolder) ?? Path.Combine("reports", $"{DateTime.Now:yyyyMMdd-HHmmss}-url");
                ReportWriter.Write(folder, report, RunnerCommandLine.Current());
                return ReportWriter.PrintOutcome(report, folder, output) ? CommandLine.ExitOk : CommandLine.ExitThresholdFailed;
            }
            catch (Exception e) when (e is UsageException or FormatException)
            {
                await error.WriteLineAsync($"error: {e.Message}");
                return CommandLine.ExitUsage;
            }
        });
        return command;
    }

    /// <summary>An absolute http(s) URL whose host is a loopback address; anything else is refused: this runner loads only this machine.</summary>
    public static Uri LoopbackUrl(string text)
    {
        if (!Uri.TryCreate(text, UriKind.Absolute, out var uri) || uri.Scheme is not ("http" or "https"))
        {
            throw new UsageException($"--url must be an absolute http(s) URL like http://127.0.0.1:5000/orders/1, got '{text}'");
        }
        var loopback = uri.IsLoopback || (IPAddress.TryParse(uri.DnsSafeHost, out var address) && IPAddress.IsLoopback(address));
        if (!loopback)
        {
            throw new UsageException($"--url host '{uri.Host}' is not a loopback address; this runner only loads 127.0.0.0/8, ::1 or localhost (run it on the service's machine)");
        }
        return uri;
    }

    /// <summary>The observed process: --pid checked, --process-name resolved to exactly one; both together refused.</summary>
    public static int? ProcessOf(int? pid, string? processName)
    {
        if (pid is not null && processName is not null)
        {
            throw new UsageException("give --pid or --process-name, not both");
        }
        if (pid is { } id)
        {
            ObserverTarget.Check(id);
            return id;
        }
        return processName is null ? null : ObserverTarget.FindByName(processName);
    }

    /// <summary>One GET before the load, so a wrong port is one clear line instead of a report of failures.</summary>
    private static async Task ProbeAsync(Uri target, CancellationToken cancellationToken)
    {
        using var http = new HttpClient { Timeout = ProbeTimeout };
        try
        {
            using var response = await http.GetAsync(target, HttpCompletionOption.ResponseHeadersRead, cancellationToken);
        }
        catch (Exception e) when (e is HttpRequestException or TaskCanceledException && !cancellationToken.IsCancellationRequested)
        {
            throw new UsageException($"nothing answered GET {target} ({e.Message}); start the service first or fix --url");
        }
    }

    /// <summary>A user's endpoint as a one-variant experiment: no seed to compare with; the observer's diagnosis is the finding.</summary>
    private sealed class UrlTarget(string pathAndQuery) : Experiment
    {
        public override string Name => "url";

        public override string Seed => "none (a user's service)";

        public override IReadOnlyList<Variant> Variants => [new Variant("target", new HttpRamp(pathAndQuery))];

        // A user's starving service may time out: that is what the run is for, not a failed run.
        public override IReadOnlyList<string> ExpectedToFail => ["target"];

        public override Finding Assess(IReadOnlyList<VariantResult> results) =>
            Finding.NotAssessed("a user's service has no seed to compare with; see \"Inside the runtime\" for the diagnosis.");
    }
}
