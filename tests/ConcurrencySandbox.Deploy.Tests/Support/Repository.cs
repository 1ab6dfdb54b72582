namespace ConcurrencySandbox.Deploy.Tests.Support;

/// <summary>Paths in the repository the tests run from.</summary>
internal static class Repository
{
    public static string Root { get; } = FindRoot();

    public static string PathOf(string relativePath) =>
        Path.GetFullPath(Path.Combine(Root, relativePath.Replace('/', Path.DirectorySeparatorChar)));

    public static string Read(string relativePath) => File.ReadAllText(PathOf(relativePath));

    private static string FindRoot()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "ConcurrencySandbox.sln")))
            {
                return dir.FullName;
            }
        }

        throw new InvalidOperationException($"No ConcurrencySandbox.sln above {AppContext.BaseDirectory}.");
    }
}
