/** Messages per load in the cluster suite: CLUSTER_MESSAGES (CI runs fewer; locally a heavier run). */
export const MESSAGES_ON_CLUSTER = Number(process.env.CLUSTER_MESSAGES || 300);
