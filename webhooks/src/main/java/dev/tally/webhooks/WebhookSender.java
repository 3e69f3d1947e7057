package dev.tally.webhooks;

import dev.tally.common.CompactedTopicView;
import dev.tally.common.KafkaSettings;
import dev.tally.common.TallyMetrics;
import dev.tally.schema.ItemCounts;
import dev.tally.schema.WebhookAttempt;
import dev.tally.schema.WebhookPosition;
import dev.tally.schema.WebhookSubscription;
import dev.tally.schemas.Topics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.eclipse.jetty.client.BufferingResponseListener;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends each subscription the latest counts of every matching item that changed, from {@code tally.item-counts}.
 *
 * <p>One thread owns all state. It reads the partitions of {@code tally.item-counts} the consumer group gives this
 * node, and keeps per subscription and item at most one pending delivery holding the newest counts: due
 * {@code coalesce_ms} after the first change not yet sent, so a burst on one item is one or two POSTs. An item has
 * at most one request in flight; a change that arrives meanwhile waits for it, so a receiver never gets an older
 * {@code seq} after acknowledging a newer one. A failure is retried on the {@link RetrySchedule}, with the newest
 * counts at the time.
 *
 * <p>Progress is a position per subscription and partition in {@code tally.webhook-positions}: the offset of the
 * oldest pending item's counts (or how far it has read, when none is pending), written every second. A restarted or
 * newly assigned node reads on from there, so a change is never lost (at least once); it sends nothing of a
 * partition until it has read the partition to the end it had when it started, so it never sends counts older than
 * some it sent before the restart.
 */
public final class WebhookSender implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WebhookSender.class);
    static final Duration TIMEOUT = Duration.ofSeconds(15);
    static final int MAX_BODY_READ = 4096;
    /** Requests in flight per subscription: one slow item holds one of them, not the subscription. */
    static final int MAX_IN_FLIGHT = 32;
    private static final int MAX_CONNECTIONS = 128;
    private static final int MAX_QUEUED = 8192;
    private static final Duration POSITIONS_EVERY = Duration.ofSeconds(1);
    private static final Duration SYNC_EVERY = Duration.ofMillis(250);
    /** Successful attempts go to the attempt log at most this often per subscription (failures and retries always). */
    static final Duration SUCCESS_LOG_EVERY = Duration.ofSeconds(1);

    private final KafkaSettings kafka;
    private final Subscriptions subscriptions;
    private final DeliveryLog log;
    private final WebhookSecrets secrets;
    private final CompactedTopicView<WebhookPosition> positions;
    private final KafkaProducer<String, WebhookPosition> positionWriter;
    private final KafkaConsumer<String, ItemCounts> consumer;
    private final ExecutorService resolver = Executors.newFixedThreadPool(2, r -> {
        Thread t = new Thread(r, "tally-webhook-dns");
        t.setDaemon(true);
        return t;
    });
    private final HttpClient http;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Done> done = new ConcurrentLinkedQueue<>();
    private final Map<String, Sub> subs = new HashMap<>();
    private final PriorityQueue<Due> due = new PriorityQueue<>();
    private final Set<TopicPartition> assigned = new HashSet<>();
    private final SplittableRandom random = new SplittableRandom();
    private final String topic;
    private final Counter delivered;
    private final Counter failed;
    private final Timer changeToDelivered;
    private final TallyMetrics metrics;
    private volatile boolean running = true;
    private volatile int pendingCount; // for the gauge, counted by the loop
    private long lastSync;
    private long lastPositions;

    public WebhookSender(KafkaSettings kafka, WebhooksConfig config, Subscriptions subscriptions, DeliveryLog log,
                         WebhookSecrets secrets, TallyMetrics metrics) {
        this.kafka = kafka;
        this.subscriptions = subscriptions;
        this.log = log;
        this.secrets = secrets;
        this.metrics = metrics;
        this.topic = kafka.topic(Topics.ITEM_COUNTS).name();
        this.positions = new CompactedTopicView<>(kafka, Topics.WEBHOOK_POSITIONS);
        this.positionWriter = new KafkaProducer<>(kafka.producerProps("tally-webhook-positions", Duration.ofSeconds(30)),
                Topics.WEBHOOK_POSITIONS.keySerde().serializer(), Topics.WEBHOOK_POSITIONS.valueSerde().serializer());
        var props = kafka.clientProps("tally-webhook-sender");
        props.put(ConsumerConfig.GROUP_ID_CONFIG, kafka.id("webhooks"));
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false); // progress is in tally.webhook-positions
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        this.consumer = new KafkaConsumer<>(props, Topics.ITEM_COUNTS.keySerde().deserializer(),
                Topics.ITEM_COUNTS.valueSerde().deserializer());
        SslContextFactory.Client tls = new SslContextFactory.Client(); // verifies the receiver's certificate and name
        this.http = new HttpClient();
        http.setSslContextFactory(tls);
        http.setSocketAddressResolver(config.guard(resolver));
        http.setFollowRedirects(false);
        http.setConnectTimeout(5_000);
        // one receiver may serve many subscriptions: each has MAX_IN_FLIGHT requests, they share the connections
        http.setMaxConnectionsPerDestination(MAX_CONNECTIONS);
        http.setMaxRequestsQueuedPerDestination(MAX_QUEUED);
        http.setUserAgentField(new org.eclipse.jetty.http.HttpField(HttpHeader.USER_AGENT, "Tally-Webhooks/1"));
        try {
            http.start();
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the webhook HTTP client", e);
        }
        var registry = metrics.registry();
        this.delivered = Counter.builder("tally_webhook_deliveries").tag("outcome", "delivered")
                .description("Webhook delivery attempts, by outcome").register(registry);
        this.failed = Counter.builder("tally_webhook_deliveries").tag("outcome", "failed")
                .description("Webhook delivery attempts, by outcome").register(registry);
        this.changeToDelivered = Timer.builder("tally_webhook_change_to_delivered")
                .description("From the first change of an item not yet sent to its delivery acknowledged")
                .publishPercentiles(0.5, 0.99).register(registry);
        Gauge.builder("tally_webhook_pending_items", this, s -> s.pendingCount)
                .description("Items changed and not yet delivered, over the subscriptions this node sends").register(registry);
        this.thread = new Thread(this::run, "tally-webhook-sender");
        thread.setDaemon(true);
        thread.start();
    }

    // ---- the loop ------------------------------------------------------------------------------------------------

    private void run() {
        consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                writePositions(true);
                for (TopicPartition tp : partitions) {
                    assigned.remove(tp);
                    for (Sub sub : subs.values()) {
                        sub.drop(tp.partition());
                    }
                }
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                assigned.addAll(partitions);
                Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
                for (Sub sub : subs.values()) {
                    for (TopicPartition tp : partitions) {
                        sub.start(tp, ends.get(tp));
                    }
                }
                rewind(partitions, ends, true);
            }
        });
        while (running) {
            try {
                long now = System.currentTimeMillis();
                if (now - lastSync >= SYNC_EVERY.toMillis()) {
                    syncSubscriptions();
                    lastSync = now;
                }
                for (ConsumerRecord<String, ItemCounts> r : consumer.poll(Duration.ofMillis(20))) {
                    feed(r, System.currentTimeMillis());
                }
                checkCaughtUp();
                Done d;
                while ((d = done.poll()) != null) {
                    complete(d, System.currentTimeMillis());
                }
                dispatch(System.currentTimeMillis());
                if (System.currentTimeMillis() - lastPositions >= POSITIONS_EVERY.toMillis()) {
                    writePositions(false);
                }
            } catch (WakeupException e) {
                break;
            } catch (RuntimeException e) {
                LOG.warn("webhook sender: {}; carrying on in 1 s", e.toString(), e);
                sleep(1000);
            }
        }
        writePositions(true);
    }

    /** Starts, updates and stops the state of each subscription as the subscriptions topic says. */
    private void syncSubscriptions() {
        if (!subscriptions.caughtUp() || !positions.caughtUp()) {
            return;
        }
        Map<String, WebhookSubscription> current = new HashMap<>();
        for (WebhookSubscription s : subscriptions.all()) {
            if (Subscriptions.ACTIVE.equals(s.getStatus())) {
                current.put(s.getId(), s);
            }
        }
        for (var it = subs.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            if (!current.containsKey(e.getKey())) {
                Sub gone = e.getValue();
                if (subscriptions.get(gone.config.getId()).isPresent()) {
                    writePositions(gone, true); // paused or disabled: it resumes from here
                } else {
                    forgetPositions(gone); // deleted
                }
                gone.close();
                it.remove();
            }
        }
        Map<TopicPartition, Long> ends = null;
        List<TopicPartition> rewound = new ArrayList<>();
        for (WebhookSubscription config : current.values()) {
            Sub sub = subs.get(config.getId());
            boolean redeliver = sub != null && config.getRedeliverRequest() > sub.config.getRedeliverRequest();
            if (sub == null || redeliver) {
                if (ends == null) {
                    ends = assigned.isEmpty() ? Map.of() : consumer.endOffsets(assigned);
                }
                if (sub == null) {
                    sub = new Sub(config);
                    subs.put(config.getId(), sub);
                } else {
                    sub.configure(config);
                }
                for (TopicPartition tp : assigned) {
                    sub.start(tp, ends.get(tp));
                }
                rewound.addAll(assigned);
            } else if (!config.equals(sub.config)) {
                sub.configure(config); // coalescing, filters, secret generation: taken as they are now
            }
        }
        if (!rewound.isEmpty()) {
            rewind(rewound, ends, false);
        }
    }

    /**
     * Moves the consumer to the oldest position any subscription needs on these partitions: back only, unless they
     * were just assigned (nothing is committed: with no subscription, a new partition is read from its end).
     */
    private void rewind(Collection<TopicPartition> partitions, Map<TopicPartition, Long> ends, boolean assigned) {
        for (TopicPartition tp : new HashSet<>(partitions)) {
            long from = ends.getOrDefault(tp, 0L);
            for (Sub sub : subs.values()) {
                Part part = sub.parts.get(tp.partition());
                if (part != null) {
                    from = Math.min(from, part.fed);
                }
            }
            if (assigned || from < consumer.position(tp)) {
                consumer.seek(tp, from);
            }
        }
    }

    /** Opens the partitions each subscription has now read to the end they had when it started them. */
    private void checkCaughtUp() {
        Map<Integer, Long> at = new HashMap<>();
        for (Sub sub : subs.values()) {
            for (var e : sub.parts.entrySet()) {
                Part part = e.getValue();
                if (!part.caughtUp) {
                    long position = at.computeIfAbsent(e.getKey(), p -> consumer.position(new TopicPartition(topic, p)));
                    // the consumer's position passes transaction markers, which no record's offset does
                    part.caughtUp = position >= part.catchUpTo;
                }
            }
        }
    }

    /** One change of one item: kept as the pending delivery of every subscription it matches, replacing older counts. */
    private void feed(ConsumerRecord<String, ItemCounts> r, long now) {
        ItemCounts counts = r.value();
        if (counts == null) {
            return;
        }
        for (Sub sub : subs.values()) {
            Part part = sub.parts.get(r.partition());
            if (part == null || r.offset() < part.fed) {
                continue;
            }
            part.fed = r.offset() + 1;
            if (!sub.filter.matches(counts.getItemType(), r.key())) {
                continue;
            }
            Pending p = sub.pending.get(r.key());
            if (p == null) {
                p = new Pending(r.key(), r.partition(), counts, r.offset(), now);
                sub.pending.put(r.key(), p);
                schedule(sub, p, now + sub.config.getCoalesceMs());
            } else if (r.offset() > p.offset) {
                p.counts = counts;
                p.offset = r.offset();
                if (p.inFlight && p.newerSince == 0) {
                    p.newerSince = now;
                }
            }
        }
    }

    private void schedule(Sub sub, Pending p, long at) {
        p.dueAt = at;
        due.add(new Due(at, sub, p));
    }

    /** Sends every pending delivery that is due, as far as its subscription has requests to spare. */
    private void dispatch(long now) {
        List<Due> later = new ArrayList<>();
        int count = 0;
        Due d;
        while ((d = due.peek()) != null && d.at <= now) {
            due.poll();
            Pending p = d.pending;
            Sub sub = d.sub;
            if (p.removed || p.inFlight || p.dueAt != d.at || sub.closed) {
                continue;
            }
            Part part = sub.parts.get(p.partition);
            if (part == null) {
                continue;
            }
            if (!part.caughtUp || sub.inFlight >= MAX_IN_FLIGHT) {
                later.add(d); // not read to the end yet, or the subscription's requests are all out
                continue;
            }
            send(sub, p, now);
        }
        for (Due l : later) {
            schedule(l.sub, l.pending, now + 100);
        }
        for (Sub sub : subs.values()) {
            count += sub.pending.size();
        }
        pendingCount = count;
    }

    private void send(Sub sub, Pending p, long now) {
        WebhookSubscription config = sub.config;
        String body = Delivery.body(p.counts, p.offset);
        String webhookId = Delivery.webhookId(config.getId(), p.key, p.offset);
        long timestamp = now / 1000;
        String signature = secrets.signature(config, webhookId, timestamp, body, Instant.ofEpochMilli(now));
        long seq = p.offset;
        p.inFlight = true;
        p.newerSince = 0;
        sub.inFlight++;
        int attempt = p.failures + 1;
        long started = System.nanoTime();
        try {
            http.newRequest(config.getUrl()).method(HttpMethod.POST).timeout(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .headers(h -> h.put("webhook-id", webhookId).put("webhook-timestamp", Long.toString(timestamp))
                            .put("webhook-signature", signature))
                    .body(new StringRequestContent("application/json", body))
                    .send(new BufferingResponseListener(MAX_BODY_READ) {
                        @Override
                        public void onComplete(Result result) {
                            int status = result.getResponse() == null ? 0 : result.getResponse().getStatus();
                            // an answer whose body runs past what is read still counts by its status
                            String error = result.isFailed() && !(status > 0 && tooLong(result.getFailure()))
                                    ? describe(result.getFailure()) : null;
                            Optional<Duration> retryAfter = result.getResponse() == null ? Optional.empty()
                                    : RetrySchedule.retryAfter(result.getResponse().getHeaders().get(HttpHeader.RETRY_AFTER), Instant.now());
                            done.add(new Done(sub, p, seq, webhookId, attempt, status, error, retryAfter, now,
                                    (int) ((System.nanoTime() - started) / 1_000_000)));
                        }
                    });
        } catch (RuntimeException e) { // a URL Jetty cannot send to
            done.add(new Done(sub, p, seq, webhookId, attempt, 0, describe(e), Optional.empty(), now, 0));
        }
    }

    private static boolean tooLong(Throwable failure) {
        return failure instanceof IllegalArgumentException && String.valueOf(failure.getMessage()).contains("Buffering capacity");
    }

    private static String describe(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        if (root instanceof java.util.concurrent.TimeoutException) {
            return "timeout after " + TIMEOUT.toSeconds() + " s";
        }
        return message.length() > 300 ? message.substring(0, 300) : message;
    }

    /** The outcome of one attempt, on the loop thread. */
    private void complete(Done d, long now) {
        Sub sub = d.sub;
        Pending p = d.pending;
        sub.inFlight--;
        p.inFlight = false;
        boolean ok = d.error == null && d.status >= 200 && d.status < 300;
        Part part = sub.parts.get(p.partition);
        if (part != null) {
            part.lastAttemptAt = d.sentAt;
            part.failingSince = ok ? 0 : part.failingSince == 0 ? d.sentAt : part.failingSince;
        }
        if (ok) {
            delivered.increment();
            changeToDelivered.record(Duration.ofMillis(Math.max(0, now - p.firstChangeAt)));
            boolean logged = d.attempt > 1 || now - sub.lastSuccessLogged >= SUCCESS_LOG_EVERY.toMillis();
            p.failures = 0;
            if (!p.removed && !sub.closed) {
                if (p.offset == d.seq) {
                    sub.pending.remove(p.key);
                    p.removed = true;
                } else { // newer counts came meanwhile: sent no sooner than coalesce_ms after this delivery
                    p.firstChangeAt = p.newerSince == 0 ? now : p.newerSince;
                    schedule(sub, p, Math.max(now, d.sentAt + sub.config.getCoalesceMs()));
                }
            }
            if (logged) {
                sub.lastSuccessLogged = now;
                log.record(attempt(sub, p, d, null));
            }
            return;
        }
        failed.increment();
        if (d.status == 410) {
            log.record(attempt(sub, p, d, null));
            disable(sub, "the receiver answered 410 Gone", now);
            return;
        }
        p.failures++;
        if (failingFor(sub, now).compareTo(RetrySchedule.DISABLE_AFTER) >= 0) {
            log.record(attempt(sub, p, d, null));
            disable(sub, "every delivery failed for " + RetrySchedule.DISABLE_AFTER.toDays() + " days", now);
            return;
        }
        long next = now + RetrySchedule.delay(p.failures, d.retryAfter, random).toMillis();
        log.record(attempt(sub, p, d, Instant.ofEpochMilli(next)));
        if (!p.removed && !sub.closed) {
            schedule(sub, p, next);
        }
    }

    private static WebhookAttempt attempt(Sub sub, Pending p, Done d, Instant next) {
        return WebhookAttempt.newBuilder().setSubscriptionId(sub.config.getId()).setWebhookId(d.webhookId)
                .setItemType(p.counts.getItemType()).setItemId(p.counts.getItemId()).setSeq(d.seq)
                .setAttempt(d.attempt).setAttemptedAt(Instant.ofEpochMilli(d.sentAt)).setDurationMs(d.durationMs)
                .setHttpStatus(d.status).setError(d.error).setNextAttemptAt(next).build();
    }

    /**
     * How long every delivery of the subscription has failed: since the latest partition began failing, provided every
     * partition that has had an attempt is failing (those of other nodes as their positions say); else zero.
     */
    private Duration failingFor(Sub sub, long now) {
        long since = 0;
        Set<Integer> mine = sub.parts.keySet();
        for (var e : sub.parts.entrySet()) {
            Part part = e.getValue();
            if (part.lastAttemptAt != 0) {
                if (part.failingSince == 0) {
                    return Duration.ZERO;
                }
                since = Math.max(since, part.failingSince);
            }
        }
        for (var e : positions.snapshot().entrySet()) {
            WebhookPosition other = e.getValue();
            if (other.getSubscriptionId().equals(sub.config.getId()) && !mine.contains(other.getPartition())
                    && other.getLastAttemptAt() != null) {
                if (other.getFailingSince() == null) {
                    return Duration.ZERO;
                }
                since = Math.max(since, other.getFailingSince().toEpochMilli());
            }
        }
        return since == 0 ? Duration.ZERO : Duration.ofMillis(now - since);
    }

    /** Marks the subscription disabled; it sends nothing more until set active again. */
    private void disable(Sub sub, String reason, long now) {
        WebhookSubscription current = subscriptions.get(sub.config.getId()).orElse(null);
        LOG.warn("webhook subscription {} disabled: {}", sub.config.getId(), reason);
        Counter.builder("tally_webhook_disabled").tag("reason", reason.contains("410") ? "gone" : "failing")
                .description("Webhook subscriptions disabled, by reason").register(metrics.registry()).increment();
        writePositions(sub, true);
        sub.close();
        subs.remove(sub.config.getId());
        if (current != null && Subscriptions.ACTIVE.equals(current.getStatus())) {
            subscriptions.put(WebhookSubscription.newBuilder(current).setStatus(Subscriptions.DISABLED)
                    .setDisabledReason(reason).setUpdatedAt(Instant.ofEpochMilli(now)).build());
        }
    }

    private void writePositions(boolean force) {
        for (Sub sub : subs.values()) {
            writePositions(sub, force);
        }
        lastPositions = System.currentTimeMillis();
    }

    /** Each partition's position of one subscription, where it changed (or when forced, every one). */
    private void writePositions(Sub sub, boolean force) {
        Map<Integer, long[]> oldest = new HashMap<>(); // partition -> {lowest pending offset, count, oldest change}
        for (Pending p : sub.pending.values()) {
            long[] o = oldest.computeIfAbsent(p.partition, k -> new long[] {Long.MAX_VALUE, 0, Long.MAX_VALUE});
            o[0] = Math.min(o[0], p.offset);
            o[1]++;
            o[2] = Math.min(o[2], p.firstChangeAt);
        }
        for (var e : sub.parts.entrySet()) {
            Part part = e.getValue();
            long[] o = oldest.get(e.getKey());
            long offset = o == null ? part.fed : Math.min(o[0], part.fed);
            int pending = o == null ? 0 : (int) o[1];
            boolean attempted = part.lastAttemptAt != 0;
            if (!force && offset == part.written && pending == part.writtenPending
                    && part.failingSince == part.writtenFailingSince && attempted == part.writtenAttempted) {
                continue;
            }
            part.written = offset;
            part.writtenPending = pending;
            part.writtenFailingSince = part.failingSince;
            part.writtenAttempted = attempted;
            WebhookPosition position = WebhookPosition.newBuilder().setSubscriptionId(sub.config.getId())
                    .setPartition(e.getKey()).setOffset(offset).setPendingItems(pending)
                    .setOldestChangeAt(o == null ? null : Instant.ofEpochMilli(o[2]))
                    .setRedeliverDone(part.redeliverDone)
                    .setFailingSince(part.failingSince == 0 ? null : Instant.ofEpochMilli(part.failingSince))
                    .setLastAttemptAt(part.lastAttemptAt == 0 ? null : Instant.ofEpochMilli(part.lastAttemptAt))
                    .setUpdatedAt(Instant.now()).build();
            String key = positionKey(sub.config.getId(), e.getKey());
            positionWriter.send(new ProducerRecord<>(kafka.topic(Topics.WEBHOOK_POSITIONS).name(), key, position));
            positions.applyLocal(key, position);
        }
    }

    /** Tombstones for a deleted subscription's positions on this node's partitions. */
    private void forgetPositions(Sub sub) {
        for (Integer partition : sub.parts.keySet()) {
            String key = positionKey(sub.config.getId(), partition);
            positionWriter.send(new ProducerRecord<>(kafka.topic(Topics.WEBHOOK_POSITIONS).name(), key, null));
            positions.applyLocal(key, null);
        }
    }

    public static String positionKey(String subscriptionId, int partition) {
        return subscriptionId + "/" + partition;
    }

    // ---- per subscription ----------------------------------------------------------------------------------------

    /** What the sender keeps of one active subscription. */
    private final class Sub {
        WebhookSubscription config;
        Subscriptions.Filter filter;
        final Map<Integer, Part> parts = new HashMap<>();
        final Map<String, Pending> pending = new HashMap<>();
        int inFlight;
        boolean closed;
        long lastSuccessLogged;

        Sub(WebhookSubscription config) {
            configure(config);
        }

        void configure(WebhookSubscription config) {
            this.config = config;
            this.filter = Subscriptions.Filter.of(config);
        }

        /**
         * Where this subscription reads a partition from: its position; for a new subscription the log's start
         * ({@code snapshot}) or its creation time ({@code now}); moved back to a redeliver request's time once per
         * request. It sends nothing of the partition before it has read to {@code end}.
         */
        void start(TopicPartition tp, Long end) {
            long last = end == null ? 0 : end;
            WebhookPosition saved = positions.get(positionKey(config.getId(), tp.partition())).orElse(null);
            Part part = new Part();
            if (saved != null) {
                part.fed = saved.getOffset();
                part.redeliverDone = saved.getRedeliverDone();
                part.failingSince = saved.getFailingSince() == null ? 0 : saved.getFailingSince().toEpochMilli();
                part.lastAttemptAt = saved.getLastAttemptAt() == null ? 0 : saved.getLastAttemptAt().toEpochMilli();
            } else {
                part.fed = "snapshot".equals(config.getStart()) ? 0 : offsetAt(tp, config.getCreatedAt(), last);
                part.redeliverDone = config.getRedeliverRequest();
            }
            if (config.getRedeliverRequest() > part.redeliverDone && config.getRedeliverSince() != null) {
                part.fed = Math.min(part.fed, offsetAt(tp, config.getRedeliverSince(), last));
                part.redeliverDone = config.getRedeliverRequest();
                part.written = -1; // the request is done once its position says so
            }
            Part before = parts.get(tp.partition());
            if (before != null) {
                part.fed = Math.min(part.fed, before.fed);
                part.failingSince = before.failingSince;
                part.lastAttemptAt = before.lastAttemptAt;
                part.written = -1;
            }
            part.catchUpTo = last;
            parts.put(tp.partition(), part);
        }

        void drop(int partition) {
            parts.remove(partition);
            pending.values().removeIf(p -> {
                if (p.partition == partition) {
                    p.removed = true;
                    return true;
                }
                return false;
            });
        }

        void close() {
            closed = true;
            pending.values().forEach(p -> p.removed = true);
            pending.clear();
        }
    }

    /** The first offset of the partition written at or after {@code time}, else {@code end}. */
    private long offsetAt(TopicPartition tp, Instant time, long end) {
        Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(Map.of(tp, time.toEpochMilli()));
        OffsetAndTimestamp at = found.get(tp);
        return at == null ? end : at.offset();
    }

    /** One subscription's progress on one partition. */
    private static final class Part {
        long fed;          // the next offset to hand to the subscription
        long catchUpTo;    // nothing is sent before the partition was read to here
        boolean caughtUp;
        int redeliverDone;
        long failingSince; // the first failed attempt since the last success, 0 when none
        long lastAttemptAt;
        long written = -1;
        int writtenPending = -1;
        long writtenFailingSince;
        boolean writtenAttempted;
    }

    /** The delivery one item owes one subscription: always the newest counts read. */
    private static final class Pending {
        final String key;
        final int partition;
        ItemCounts counts;
        long offset;
        long firstChangeAt;
        long newerSince;
        long dueAt;
        int failures;
        boolean inFlight;
        boolean removed;

        Pending(String key, int partition, ItemCounts counts, long offset, long now) {
            this.key = key;
            this.partition = partition;
            this.counts = counts;
            this.offset = offset;
            this.firstChangeAt = now;
        }
    }

    private record Due(long at, Sub sub, Pending pending) implements Comparable<Due> {
        @Override
        public int compareTo(Due o) {
            return Long.compare(at, o.at);
        }
    }

    /** One attempt's outcome: the seq and webhook-id it sent, and what came back. */
    private record Done(Sub sub, Pending pending, long seq, String webhookId, int attempt, int status, String error,
                        Optional<Duration> retryAfter, long sentAt, int durationMs) {}

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        consumer.close(Duration.ofSeconds(5));
        try {
            http.stop();
        } catch (Exception e) {
            LOG.debug("stopping the webhook HTTP client: {}", e.toString());
        }
        resolver.shutdownNow();
        positionWriter.close(Duration.ofSeconds(5));
        positions.close();
    }
}
