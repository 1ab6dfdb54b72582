using Xunit.Sdk;

namespace ConcurrencySandbox.LoadTests.Tests;

public sealed class FolderKeptOnFailureTests
{
    [Fact]
    public void AFailedCheckKeepsTheFolderWithTheConsoleAndNamesItsPath()
    {
        var folder = new FolderKeptOnFailure("kept-");
        try
        {
            File.WriteAllText(Path.Combine(folder.Path, "summary.json"), "{}");
            folder.KeepConsole(1, "-- find-capacity: broke at 2 users", "error: by the upstream");

            var failure = Assert.Throws<XunitException>(() => folder.Check(() => Assert.Contains("pool starvation", "by the upstream")));
            folder.Dispose();

            Assert.Contains(folder.Path, failure.Message);
            Assert.Contains("pool starvation", failure.Message);
            Assert.True(File.Exists(Path.Combine(folder.Path, "summary.json")));
            var console = File.ReadAllText(Path.Combine(folder.Path, FolderKeptOnFailure.ConsoleFile));
            Assert.Contains("exit 1", console);
            Assert.Contains("broke at 2 users", console);
            Assert.Contains("error: by the upstream", console);
        }
        finally
        {
            Directory.Delete(folder.Path, recursive: true);
        }
    }

    [Fact]
    public void EveryCheckPassedDeletesTheFolder()
    {
        var folder = new FolderKeptOnFailure("kept-");
        folder.KeepConsole(0, "ok", "");

        folder.Check(() => Assert.True(true));
        folder.Check(() => Assert.Equal(2, 1 + 1));
        folder.Dispose();

        Assert.False(folder.Kept);
        Assert.False(Directory.Exists(folder.Path));
    }
}
