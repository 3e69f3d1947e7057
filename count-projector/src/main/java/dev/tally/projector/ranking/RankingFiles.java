package dev.tally.projector.ranking;

import dev.tally.schema.RankingArtifact;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.UUID;

/**
 * Writes artifacts as static files a CDN can serve, {@code <root>/<item_type>/top.json} (the
 * read path is a file, so ten million readers never touch Kafka). Each file is written beside its target
 * and renamed over it, so a reader sees the old file or the new one, never half of one.
 */
public final class RankingFiles {
    static final String FILE_NAME = "top.json";

    private final Path root;

    public RankingFiles(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    public Path root() {
        return root;
    }

    /** Where the artifact of {@code itemType} lives. */
    public Path path(String itemType) {
        // the type becomes a directory name: only the contract's shape, never "..", "/" or an absolute path
        if (itemType == null || !RankingValidator.ITEM_TYPE.matcher(itemType).matches()) {
            throw new IllegalArgumentException("item type '" + itemType + "' does not match " + RankingValidator.ITEM_TYPE);
        }
        return root.resolve(itemType).resolve(FILE_NAME);
    }

    /** Replaces the type's file atomically; returns its path. */
    public Path write(RankingArtifact artifact) throws IOException {
        Path target = path(artifact.getItemType());
        Files.createDirectories(target.getParent());
        Path temp = target.resolveSibling("." + FILE_NAME + "." + UUID.randomUUID() + ".tmp");
        try {
            try (FileChannel out = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ByteBuffer bytes = ByteBuffer.wrap(RankingJson.bytes(artifact));
                while (bytes.hasRemaining()) {
                    out.write(bytes);
                }
                out.force(true); // the rename must not become visible before the content
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
            return target;
        } finally {
            Files.deleteIfExists(temp);
        }
    }
}
