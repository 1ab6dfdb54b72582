using System.Text;
using Markdig;
using Markdig.Syntax;
using Markdig.Syntax.Inlines;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>
/// Every relative link and image in the README and docs/ points at a file that exists and, with a #fragment into a
/// Markdown page, at a heading of that page (GitHub's anchor for it), so a page moved or a heading renamed fails here.
/// </summary>
public sealed class DocsLinkTests
{
    private static readonly MarkdownPipeline Pipeline = new MarkdownPipelineBuilder().UsePipeTables().Build();

    public static TheoryData<string> Pages()
    {
        var root = FolderLayeringTests.RepositoryRoot();
        var docs = Directory.GetFiles(Path.Combine(root, "docs"), "*.md", SearchOption.AllDirectories)
            .Where(page => !page.Contains($"{Path.DirectorySeparatorChar}results{Path.DirectorySeparatorChar}", StringComparison.Ordinal));
        return [.. docs.Prepend(Path.Combine(root, "README.md")).Select(page => Path.GetRelativePath(root, page)).Order(StringComparer.Ordinal)];
    }

    [Theory]
    [MemberData(nameof(Pages))]
    public void EveryRelativeLinkResolvesToAFileAndAHeading(string page)
    {
        var root = FolderLayeringTests.RepositoryRoot();
        var broken = BrokenLinks(Path.Combine(root, page)).ToList();
        Assert.True(broken.Count == 0, $"{page}: {string.Join("; ", broken)}");
    }

    [Fact]
    public void AMissingPageAndAMissingHeadingAreBothFound()
    {
        var folder = Directory.CreateTempSubdirectory("docs-links-");
        try
        {
            File.WriteAllText(Path.Combine(folder.FullName, "guide.md"), "# The guide\n\n## Run `fanout --profile quick`: 4 → 40 users\n\nText.\n");
            var page = Path.Combine(folder.FullName, "page.md");
            File.WriteAllText(page, """
                # Page

                [fine](guide.md#run-fanout---profile-quick-4--40-users), [here](#page), `[code](nowhere.md)`,
                [gone](missing.md), [wrong heading](guide.md#no-such-heading), [web](https://example.com/x.md).
                """);

            Assert.Equal(["missing.md: no such file", "guide.md#no-such-heading: no such heading"], BrokenLinks(page));
        }
        finally
        {
            folder.Delete(recursive: true);
        }
    }

    private static IEnumerable<string> BrokenLinks(string page)
    {
        var folder = Path.GetDirectoryName(page)!;
        foreach (var link in Markdown.Parse(File.ReadAllText(page), Pipeline).Descendants<LinkInline>())
        {
            var url = link.Url ?? "";
            if (url.Length == 0 || Uri.TryCreate(url, UriKind.Absolute, out _))
                continue;
            var hash = url.IndexOf('#', StringComparison.Ordinal);
            var (path, fragment) = hash < 0 ? (url, "") : (url[..hash], url[(hash + 1)..]);
            var target = path.Length == 0 ? page : Path.GetFullPath(Path.Combine(folder, Uri.UnescapeDataString(path)));
            if (!File.Exists(target) && !Directory.Exists(target))
                yield return $"{url}: no such file";
            else if (fragment.Length > 0 && target.EndsWith(".md", StringComparison.Ordinal) && !Anchors(target).Contains(fragment))
                yield return $"{url}: no such heading";
        }
    }

    /// <summary>GitHub's anchors: the heading's text lower-cased, only letters, digits, '-', '_' and spaces kept, spaces
    /// turned to '-', and "-1", "-2"... added to a repeated one.</summary>
    private static HashSet<string> Anchors(string page)
    {
        var seen = new Dictionary<string, int>(StringComparer.Ordinal);
        var anchors = new HashSet<string>(StringComparer.Ordinal);
        foreach (var heading in Markdown.Parse(File.ReadAllText(page), Pipeline).Descendants<HeadingBlock>())
        {
            var slug = new StringBuilder();
            foreach (var c in PlainText(heading.Inline).Trim().ToLowerInvariant())
            {
                if (char.IsLetterOrDigit(c) || c is '-' or '_')
                    slug.Append(c);
                else if (c == ' ')
                    slug.Append('-');
            }
            var anchor = slug.ToString();
            var repeats = seen.GetValueOrDefault(anchor);
            seen[anchor] = repeats + 1;
            anchors.Add(repeats == 0 ? anchor : $"{anchor}-{repeats}");
        }
        return anchors;
    }

    private static string PlainText(ContainerInline? inline) =>
        inline is null ? "" : string.Concat(inline.Select(child => child switch
        {
            LiteralInline literal => literal.Content.ToString(),
            CodeInline code => code.Content,
            ContainerInline container => PlainText(container),
            _ => "",
        }));
}
