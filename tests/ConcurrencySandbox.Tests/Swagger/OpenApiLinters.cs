using System.Diagnostics;

namespace ConcurrencySandbox.Tests.Swagger;

/// <summary>
/// Redocly CLI and Spectral, installed from npm once into a cache outside the repository
/// (~/.cache/concurrencysandbox/npm). Null <see cref="Unavailable"/> means both are ready.
/// </summary>
internal static class OpenApiLinters
{
    public const string Redocly = "@redocly/cli@2.77.0";
    public const string Spectral = "@stoplight/spectral-cli@6.16.3";
    private static readonly TimeSpan InstallTimeout = TimeSpan.FromMinutes(2);
    private static readonly Lazy<string?> Installation = new(Install);

    public static string CacheFolder { get; } = Path.Combine(
        Environment.GetFolderPath(Environment.SpecialFolder.UserProfile), ".cache", "concurrencysandbox", "npm");

    /// <summary>Why the linters cannot run here (no npm, registry unreachable), or null when they can.</summary>
    public static string? Unavailable => Installation.Value;

    public static string Bin(string tool) => Path.Combine(CacheFolder, "node_modules", ".bin", tool);

    /// <summary>Runs a tool to completion within the timeout; returns its exit code and both outputs together.</summary>
    public static (int ExitCode, string Output) Run(string fileName, TimeSpan timeout, params string[] arguments)
    {
        var start = new ProcessStartInfo(fileName) { RedirectStandardOutput = true, RedirectStandardError = true, WorkingDirectory = CacheFolder };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        using var process = Process.Start(start) ?? throw new InvalidOperationException($"Could not start {fileName}.");
        var errors = process.StandardError.ReadToEndAsync();
        var output = process.StandardOutput.ReadToEndAsync();
        if (!process.WaitForExit(timeout))
        {
            process.Kill(entireProcessTree: true);
            return (-1, $"{fileName} did not finish within {timeout.TotalSeconds:0} s.");
        }

        return (process.ExitCode, output.Result + errors.Result);
    }

    private static string? Install()
    {
        if (File.Exists(Bin("redocly")) && File.Exists(Bin("spectral")))
        {
            return null;
        }

        Directory.CreateDirectory(CacheFolder);
        try
        {
            var (exitCode, output) = Run("npm", InstallTimeout, "install", "--prefix", CacheFolder, "--no-audit", "--no-fund", Redocly, Spectral);
            return exitCode == 0 ? null : $"npm could not install {Redocly} and {Spectral} into {CacheFolder} (registry unreachable?): {Tail(output)}";
        }
        catch (System.ComponentModel.Win32Exception)
        {
            return "npm is not on the PATH of this machine.";
        }
    }

    private static string Tail(string text) => text.Length > 400 ? text[^400..] : text;
}

/// <summary>A fact that runs only where the OpenAPI linters could be installed, and says why when skipped.</summary>
internal sealed class FactWhenOpenApiLintersInstallAttribute : FactAttribute
{
    public FactWhenOpenApiLintersInstallAttribute()
    {
        if (OpenApiLinters.Unavailable is { } reason)
        {
            Skip = reason;
        }
    }
}
