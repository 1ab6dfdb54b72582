using Xunit.Sdk;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>
/// A run's output folder that outlives a failed check, so a rare failure can be read afterwards: <see cref="Check"/> runs a
/// test's assertions and, when one fails, keeps the folder (summary.json, the report, the console output written into it)
/// and names its path in the failure's message; <see cref="Dispose"/> deletes it when every check passed.
/// </summary>
public sealed class FolderKeptOnFailure(string prefix) : IDisposable
{
    /// <summary>The file the run's exit code and console output are written to (<see cref="KeepConsole"/>).</summary>
    public const string ConsoleFile = "console.txt";

    public string Path { get; } = Directory.CreateTempSubdirectory(prefix).FullName;

    /// <summary>Whether a check failed, so the folder stays.</summary>
    public bool Kept { get; private set; }

    /// <summary>Writes the run's exit code and both outputs to <see cref="ConsoleFile"/> in the folder, beside what the run wrote.</summary>
    public void KeepConsole(int code, string output, string error) =>
        File.WriteAllText(System.IO.Path.Combine(Path, ConsoleFile), $"exit {code}\n--- standard output\n{output}\n--- standard error\n{error}\n");

    /// <summary>Runs <paramref name="assertions"/>; when they fail, keeps the folder and fails with their message and its path.</summary>
    public void Check(Action assertions)
    {
        try
        {
            assertions();
        }
        catch (Exception e)
        {
            Kept = true;
            throw new XunitException($"{e.Message}\nThe run's output is kept for reading in {Path} (summary.json, {ConsoleFile}).", e);
        }
    }

    public void Dispose()
    {
        if (!Kept && Directory.Exists(Path))
        {
            Directory.Delete(Path, recursive: true);
        }
    }
}
