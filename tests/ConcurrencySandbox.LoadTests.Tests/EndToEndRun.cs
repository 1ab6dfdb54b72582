using ConcurrencySandbox.LoadTests.Cli;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>
/// What the end-to-end classes share: a folder for the run's output, deleted afterwards, and the runner run as a process.
/// Four classes, not one: xUnit runs a class's tests one after another, and as one class of 12 tests (213 s) they ended
/// clean-clone CI's LoadTests alone for about three minutes (2026-11-30).
/// </summary>
public abstract class EndToEndRun : IDisposable
{
    protected string Out { get; } = Path.Combine(Path.GetTempPath(), "loadtests-e2e-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(Out))
        {
            Directory.Delete(Out, recursive: true);
        }
        GC.SuppressFinalize(this);
    }

    protected List<Dictionary<string, string>> ReadCsv(string name)
    {
        var lines = File.ReadAllLines(Path.Combine(Out, name));
        var header = lines[0].Split(',');
        return [.. lines.Skip(1).Select(line => header.Zip(line.Split(',')).ToDictionary(p => p.First, p => p.Second))];
    }

    protected static Task<(int Code, string Output, string Error)> RunRunnerAsync(params string[] args) =>
        CommandRun.RunAsync("dotnet", [typeof(Runner).Assembly.Location, .. args]);
}
