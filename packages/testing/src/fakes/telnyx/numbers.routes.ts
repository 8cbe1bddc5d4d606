import { Hono } from 'hono';

/** available_phone_numbers, number_orders, phone_numbers: the phone-numbers issue. */
export function telnyxNumberRoutes() {
  return new Hono();
}
