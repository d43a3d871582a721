/** The example's data: orders, each in one realm (a resource with a realm column, spec consumer rule 10). */
export interface Order {
    id: string;
    realmId: string;
    item: string;
}

export class OrderStore {
    private readonly orders = new Map<string, Order>();

    add(order: Order): Order {
        this.orders.set(order.id, order);
        return order;
    }

    find(id: string): Order | undefined {
        return this.orders.get(id);
    }
}

/** The permission the order routes need: a global definition, bound to system.default by the server. */
export const ORDER_READ = 'order_read';
